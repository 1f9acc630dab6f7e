from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.severity import Severity
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.question_answer import QuestionAnswer
    from ..models.question_option import QuestionOption


T = TypeVar("T", bound="QuestionMessage")


@_attrs_define
class QuestionMessage:
    """A question with predefined answers that pauses the agent until the person picks one.

    Attributes:
        options (list[QuestionOption]): The answers to choose from.
        question (str): The question.
        severity (Severity): How much a question matters.
            - `critical`: Must be answered with care (shown in red).
            - `major`: Important (shown in orange).
            - `minor`: Routine (default styling).
        answer (None | QuestionAnswer | Unset): The person's answer, once given.
        context (None | str | Unset): Background that helps the person answer.
        default (None | str | Unset): The value of the suggested option.
    """

    options: list[QuestionOption]
    question: str
    severity: Severity
    answer: None | QuestionAnswer | Unset = UNSET
    context: None | str | Unset = UNSET
    default: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.question_answer import QuestionAnswer

        options = []
        for options_item_data in self.options:
            options_item = options_item_data.to_dict()
            options.append(options_item)

        question = self.question

        severity = self.severity.value

        answer: dict[str, Any] | None | Unset
        if isinstance(self.answer, Unset):
            answer = UNSET
        elif isinstance(self.answer, QuestionAnswer):
            answer = self.answer.to_dict()
        else:
            answer = self.answer

        context: None | str | Unset
        if isinstance(self.context, Unset):
            context = UNSET
        else:
            context = self.context

        default: None | str | Unset
        if isinstance(self.default, Unset):
            default = UNSET
        else:
            default = self.default

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "options": options,
                "question": question,
                "severity": severity,
            }
        )
        if answer is not UNSET:
            field_dict["answer"] = answer
        if context is not UNSET:
            field_dict["context"] = context
        if default is not UNSET:
            field_dict["default"] = default

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.question_answer import QuestionAnswer
        from ..models.question_option import QuestionOption

        d = dict(src_dict)
        options = []
        _options = d.pop("options")
        for options_item_data in _options:
            options_item = QuestionOption.from_dict(options_item_data)

            options.append(options_item)

        question = d.pop("question")

        severity = Severity(d.pop("severity"))

        def _parse_answer(data: object) -> None | QuestionAnswer | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                answer_type_0 = QuestionAnswer.from_dict(data)

                return answer_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | QuestionAnswer | Unset, data)

        answer = _parse_answer(d.pop("answer", UNSET))

        def _parse_context(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        context = _parse_context(d.pop("context", UNSET))

        def _parse_default(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        default = _parse_default(d.pop("default", UNSET))

        question_message = cls(
            options=options,
            question=question,
            severity=severity,
            answer=answer,
            context=context,
            default=default,
        )

        question_message.additional_properties = d
        return question_message

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.processor_name import ProcessorName
from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateBranchRequest")


@_attrs_define
class CreateBranchRequest:
    """`POST /v1/contexts/{id}/branches`.

    Attributes:
        name (str): The name of a branch within a context, unique in that context (`main` by default).
        before_message (None | Unset | UUID): The first message to leave out: the branch keeps only what comes before it
            (nothing,
            for the branch's first message). This is how an edited message or a regenerated answer
            gets its own branch. Not together with `from_message`.
        from_branch (None | str | Unset): The branch to fork; the active branch when absent.
        from_message (None | Unset | UUID): The last message to keep from it; all of it when absent.
        pipeline (list[ProcessorName] | None | Unset): This branch's own message pipeline, in order; the standard one
            when absent.
            `prepare_request` is always run last.
        system_prompt (None | str | Unset): A system prompt for this branch only.
    """

    name: str
    before_message: None | Unset | UUID = UNSET
    from_branch: None | str | Unset = UNSET
    from_message: None | Unset | UUID = UNSET
    pipeline: list[ProcessorName] | None | Unset = UNSET
    system_prompt: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        before_message: None | str | Unset
        if isinstance(self.before_message, Unset):
            before_message = UNSET
        elif isinstance(self.before_message, UUID):
            before_message = str(self.before_message)
        else:
            before_message = self.before_message

        from_branch: None | str | Unset
        if isinstance(self.from_branch, Unset):
            from_branch = UNSET
        else:
            from_branch = self.from_branch

        from_message: None | str | Unset
        if isinstance(self.from_message, Unset):
            from_message = UNSET
        elif isinstance(self.from_message, UUID):
            from_message = str(self.from_message)
        else:
            from_message = self.from_message

        pipeline: list[str] | None | Unset
        if isinstance(self.pipeline, Unset):
            pipeline = UNSET
        elif isinstance(self.pipeline, list):
            pipeline = []
            for pipeline_type_0_item_data in self.pipeline:
                pipeline_type_0_item = pipeline_type_0_item_data.value
                pipeline.append(pipeline_type_0_item)

        else:
            pipeline = self.pipeline

        system_prompt: None | str | Unset
        if isinstance(self.system_prompt, Unset):
            system_prompt = UNSET
        else:
            system_prompt = self.system_prompt

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
            }
        )
        if before_message is not UNSET:
            field_dict["before_message"] = before_message
        if from_branch is not UNSET:
            field_dict["from_branch"] = from_branch
        if from_message is not UNSET:
            field_dict["from_message"] = from_message
        if pipeline is not UNSET:
            field_dict["pipeline"] = pipeline
        if system_prompt is not UNSET:
            field_dict["system_prompt"] = system_prompt

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        def _parse_before_message(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                before_message_type_0 = UUID(data)

                return before_message_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        before_message = _parse_before_message(d.pop("before_message", UNSET))

        def _parse_from_branch(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        from_branch = _parse_from_branch(d.pop("from_branch", UNSET))

        def _parse_from_message(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                from_message_type_0 = UUID(data)

                return from_message_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        from_message = _parse_from_message(d.pop("from_message", UNSET))

        def _parse_pipeline(data: object) -> list[ProcessorName] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                pipeline_type_0 = []
                _pipeline_type_0 = data
                for pipeline_type_0_item_data in _pipeline_type_0:
                    pipeline_type_0_item = ProcessorName(pipeline_type_0_item_data)

                    pipeline_type_0.append(pipeline_type_0_item)

                return pipeline_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ProcessorName] | None | Unset, data)

        pipeline = _parse_pipeline(d.pop("pipeline", UNSET))

        def _parse_system_prompt(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        system_prompt = _parse_system_prompt(d.pop("system_prompt", UNSET))

        create_branch_request = cls(
            name=name,
            before_message=before_message,
            from_branch=from_branch,
            from_message=from_message,
            pipeline=pipeline,
            system_prompt=system_prompt,
        )

        create_branch_request.additional_properties = d
        return create_branch_request

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

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.ledger_part import LedgerPart
    from ..models.request_budget import RequestBudget
    from ..models.sent_message import SentMessage
    from ..models.tools_part import ToolsPart


T = TypeVar("T", bound="ModelRequestRecord")


@_attrs_define
class ModelRequestRecord:
    """One request sent to the model, as the optimizer built it: `GET
    /v1/contexts/{id}/requests` lists them; an answer's `metadata.model_request_id` names its
    own.

        Attributes:
            branch (str): The name of a branch within a context, unique in that context (`main` by default).
            budget (RequestBudget): The window a request was fitted to.
            calibrated_tokens (int): The same, scaled by what the model server reported for earlier requests.
            created_at (datetime.datetime): When the request was prepared.
            dropped (list[UUID]): Stored messages of the branch left out of this request, oldest first (those a summary
                stands in for are listed with the summary, not here).
            encoding (str): The encoding the counts were made with (`o200k_base`, `cl100k_base`).
            id (UUID): Identifies one recorded model request (`ModelRequestRecord`): what one call to the model
                was sent.
            messages (list[SentMessage]): The messages sent, in order.
            model (str): The model asked.
            system_prompt_tokens (int): Tokens of the system prompt.
            tokens (int): Tokens of the whole request as the provider receives it (system prompt, tools, ledger,
                messages): its format joins adjacent user texts (the ledger and the message after it)
                and a model turn's messages into one, so this is a little less than the sum of the
                parts' counts.
            tools (ToolsPart): The tool definitions a request offered.
            answer_turn_id (None | Unset | UUID): The model turn of the answer the request started (its messages' `turn_id`
                metadata),
                once the request goes out. Not the API's turn (`ContextTurnId`, what a send answers
                with and `GET /v1/contexts/{id}/turns/{turn_id}` reads), which may ask the model many
                times. Records stored before it was renamed named it `turn_id`.
            compaction_id (None | Unset | UUID): The compaction this request's preparation recorded, if it compacted anew.
            ledger (LedgerPart | None | Unset): The ledger block sent, when there was one.
    """

    branch: str
    budget: RequestBudget
    calibrated_tokens: int
    created_at: datetime.datetime
    dropped: list[UUID]
    encoding: str
    id: UUID
    messages: list[SentMessage]
    model: str
    system_prompt_tokens: int
    tokens: int
    tools: ToolsPart
    answer_turn_id: None | Unset | UUID = UNSET
    compaction_id: None | Unset | UUID = UNSET
    ledger: LedgerPart | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.ledger_part import LedgerPart

        branch = self.branch

        budget = self.budget.to_dict()

        calibrated_tokens = self.calibrated_tokens

        created_at = self.created_at.isoformat()

        dropped = []
        for dropped_item_data in self.dropped:
            dropped_item = str(dropped_item_data)
            dropped.append(dropped_item)

        encoding = self.encoding

        id = str(self.id)

        messages = []
        for messages_item_data in self.messages:
            messages_item = messages_item_data.to_dict()
            messages.append(messages_item)

        model = self.model

        system_prompt_tokens = self.system_prompt_tokens

        tokens = self.tokens

        tools = self.tools.to_dict()

        answer_turn_id: None | str | Unset
        if isinstance(self.answer_turn_id, Unset):
            answer_turn_id = UNSET
        elif isinstance(self.answer_turn_id, UUID):
            answer_turn_id = str(self.answer_turn_id)
        else:
            answer_turn_id = self.answer_turn_id

        compaction_id: None | str | Unset
        if isinstance(self.compaction_id, Unset):
            compaction_id = UNSET
        elif isinstance(self.compaction_id, UUID):
            compaction_id = str(self.compaction_id)
        else:
            compaction_id = self.compaction_id

        ledger: dict[str, Any] | None | Unset
        if isinstance(self.ledger, Unset):
            ledger = UNSET
        elif isinstance(self.ledger, LedgerPart):
            ledger = self.ledger.to_dict()
        else:
            ledger = self.ledger

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "branch": branch,
                "budget": budget,
                "calibrated_tokens": calibrated_tokens,
                "created_at": created_at,
                "dropped": dropped,
                "encoding": encoding,
                "id": id,
                "messages": messages,
                "model": model,
                "system_prompt_tokens": system_prompt_tokens,
                "tokens": tokens,
                "tools": tools,
            }
        )
        if answer_turn_id is not UNSET:
            field_dict["answer_turn_id"] = answer_turn_id
        if compaction_id is not UNSET:
            field_dict["compaction_id"] = compaction_id
        if ledger is not UNSET:
            field_dict["ledger"] = ledger

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.ledger_part import LedgerPart
        from ..models.request_budget import RequestBudget
        from ..models.sent_message import SentMessage
        from ..models.tools_part import ToolsPart

        d = dict(src_dict)
        branch = d.pop("branch")

        budget = RequestBudget.from_dict(d.pop("budget"))

        calibrated_tokens = d.pop("calibrated_tokens")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        dropped = []
        _dropped = d.pop("dropped")
        for dropped_item_data in _dropped:
            dropped_item = UUID(dropped_item_data)

            dropped.append(dropped_item)

        encoding = d.pop("encoding")

        id = UUID(d.pop("id"))

        messages = []
        _messages = d.pop("messages")
        for messages_item_data in _messages:
            messages_item = SentMessage.from_dict(messages_item_data)

            messages.append(messages_item)

        model = d.pop("model")

        system_prompt_tokens = d.pop("system_prompt_tokens")

        tokens = d.pop("tokens")

        tools = ToolsPart.from_dict(d.pop("tools"))

        def _parse_answer_turn_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                answer_turn_id_type_0 = UUID(data)

                return answer_turn_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        answer_turn_id = _parse_answer_turn_id(d.pop("answer_turn_id", UNSET))

        def _parse_compaction_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                compaction_id_type_0 = UUID(data)

                return compaction_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        compaction_id = _parse_compaction_id(d.pop("compaction_id", UNSET))

        def _parse_ledger(data: object) -> LedgerPart | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                ledger_type_0 = LedgerPart.from_dict(data)

                return ledger_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LedgerPart | None | Unset, data)

        ledger = _parse_ledger(d.pop("ledger", UNSET))

        model_request_record = cls(
            branch=branch,
            budget=budget,
            calibrated_tokens=calibrated_tokens,
            created_at=created_at,
            dropped=dropped,
            encoding=encoding,
            id=id,
            messages=messages,
            model=model,
            system_prompt_tokens=system_prompt_tokens,
            tokens=tokens,
            tools=tools,
            answer_turn_id=answer_turn_id,
            compaction_id=compaction_id,
            ledger=ledger,
        )

        model_request_record.additional_properties = d
        return model_request_record

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

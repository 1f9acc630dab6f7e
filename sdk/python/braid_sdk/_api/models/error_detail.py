from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ErrorDetail")


@_attrs_define
class ErrorDetail:
    """Details of a failure, in a form both a person and a model can read.

    Attributes:
        message (str): What went wrong.
        recoverable (bool): Whether trying again (or continuing) can succeed. Default: False.
        code (None | str | Unset): A machine-readable code (`timeout`, `permission_denied`, an MCP error code...).
        details (Any | Unset): Structured details from the source (e.g. an MCP error's `data`).
        stack_trace (None | str | Unset): A trace of where it failed, when one is available.
    """

    message: str
    recoverable: bool = False
    code: None | str | Unset = UNSET
    details: Any | Unset = UNSET
    stack_trace: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message = self.message

        recoverable = self.recoverable

        code: None | str | Unset
        if isinstance(self.code, Unset):
            code = UNSET
        else:
            code = self.code

        details = self.details

        stack_trace: None | str | Unset
        if isinstance(self.stack_trace, Unset):
            stack_trace = UNSET
        else:
            stack_trace = self.stack_trace

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "message": message,
                "recoverable": recoverable,
            }
        )
        if code is not UNSET:
            field_dict["code"] = code
        if details is not UNSET:
            field_dict["details"] = details
        if stack_trace is not UNSET:
            field_dict["stack_trace"] = stack_trace

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        message = d.pop("message")

        recoverable = d.pop("recoverable")

        def _parse_code(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        code = _parse_code(d.pop("code", UNSET))

        details = d.pop("details", UNSET)

        def _parse_stack_trace(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        stack_trace = _parse_stack_trace(d.pop("stack_trace", UNSET))

        error_detail = cls(
            message=message,
            recoverable=recoverable,
            code=code,
            details=details,
            stack_trace=stack_trace,
        )

        error_detail.additional_properties = d
        return error_detail

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

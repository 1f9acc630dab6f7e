from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.run_workflow_request_parameters import RunWorkflowRequestParameters


T = TypeVar("T", bound="RunWorkflowRequest")


@_attrs_define
class RunWorkflowRequest:
    """`POST /v1/contexts/{id}/workflows/{name}/run`.

    Attributes:
        display_text (None | str | Unset): How the UI shows the request.
        parameters (RunWorkflowRequestParameters | Unset): Parameter values, checked against the definition's schema
            (defaults fill the rest).
    """

    display_text: None | str | Unset = UNSET
    parameters: RunWorkflowRequestParameters | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        display_text: None | str | Unset
        if isinstance(self.display_text, Unset):
            display_text = UNSET
        else:
            display_text = self.display_text

        parameters: dict[str, Any] | Unset = UNSET
        if not isinstance(self.parameters, Unset):
            parameters = self.parameters.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if display_text is not UNSET:
            field_dict["display_text"] = display_text
        if parameters is not UNSET:
            field_dict["parameters"] = parameters

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.run_workflow_request_parameters import (
            RunWorkflowRequestParameters,
        )

        d = dict(src_dict)

        def _parse_display_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        display_text = _parse_display_text(d.pop("display_text", UNSET))

        _parameters = d.pop("parameters", UNSET)
        parameters: RunWorkflowRequestParameters | Unset
        if isinstance(_parameters, Unset):
            parameters = UNSET
        else:
            parameters = RunWorkflowRequestParameters.from_dict(_parameters)

        run_workflow_request = cls(
            display_text=display_text,
            parameters=parameters,
        )

        run_workflow_request.additional_properties = d
        return run_workflow_request

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

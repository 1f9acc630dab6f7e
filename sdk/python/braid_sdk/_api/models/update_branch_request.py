from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.processor_name import ProcessorName
from ..types import UNSET, Unset

T = TypeVar("T", bound="UpdateBranchRequest")


@_attrs_define
class UpdateBranchRequest:
    """`PATCH /v1/contexts/{id}/branches/{name}`: changes a branch's settings after its creation.
    An absent field stays as it is; `null` clears it (the base prompt, the standard pipeline).

        Attributes:
            pipeline (list[ProcessorName] | None | Unset): This branch's own pipeline; `null` returns to the standard one.
            system_prompt (None | str | Unset): A system prompt for this branch only; `null` or empty returns to the base
                prompt.
    """

    pipeline: list[ProcessorName] | None | Unset = UNSET
    system_prompt: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
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
        field_dict.update({})
        if pipeline is not UNSET:
            field_dict["pipeline"] = pipeline
        if system_prompt is not UNSET:
            field_dict["system_prompt"] = system_prompt

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

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

        update_branch_request = cls(
            pipeline=pipeline,
            system_prompt=system_prompt,
        )

        update_branch_request.additional_properties = d
        return update_branch_request

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

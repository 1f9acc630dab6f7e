from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.processor_name import ProcessorName
from ..types import UNSET, Unset

T = TypeVar("T", bound="BranchInfo")


@_attrs_define
class BranchInfo:
    """A branch as the API shows it.

    Attributes:
        created_at (datetime.datetime): When it was created.
        message_count (int): Messages in it.
        name (str): The name of a branch within a context, unique in that context (`main` by default).
        fork_point (None | Unset | UUID): The last message it shares with its parent.
        parent (None | str | Unset): The branch it was forked from.
        pipeline (list[ProcessorName] | None | Unset): Its own pipeline, when it has one.
        system_prompt (None | str | Unset): Its system prompt override.
    """

    created_at: datetime.datetime
    message_count: int
    name: str
    fork_point: None | Unset | UUID = UNSET
    parent: None | str | Unset = UNSET
    pipeline: list[ProcessorName] | None | Unset = UNSET
    system_prompt: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        message_count = self.message_count

        name = self.name

        fork_point: None | str | Unset
        if isinstance(self.fork_point, Unset):
            fork_point = UNSET
        elif isinstance(self.fork_point, UUID):
            fork_point = str(self.fork_point)
        else:
            fork_point = self.fork_point

        parent: None | str | Unset
        if isinstance(self.parent, Unset):
            parent = UNSET
        else:
            parent = self.parent

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
                "created_at": created_at,
                "message_count": message_count,
                "name": name,
            }
        )
        if fork_point is not UNSET:
            field_dict["fork_point"] = fork_point
        if parent is not UNSET:
            field_dict["parent"] = parent
        if pipeline is not UNSET:
            field_dict["pipeline"] = pipeline
        if system_prompt is not UNSET:
            field_dict["system_prompt"] = system_prompt

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        message_count = d.pop("message_count")

        name = d.pop("name")

        def _parse_fork_point(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                fork_point_type_0 = UUID(data)

                return fork_point_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        fork_point = _parse_fork_point(d.pop("fork_point", UNSET))

        def _parse_parent(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        parent = _parse_parent(d.pop("parent", UNSET))

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

        branch_info = cls(
            created_at=created_at,
            message_count=message_count,
            name=name,
            fork_point=fork_point,
            parent=parent,
            pipeline=pipeline,
            system_prompt=system_prompt,
        )

        branch_info.additional_properties = d
        return branch_info

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

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.resolution import Resolution

T = TypeVar("T", bound="ConflictResolution")


@_attrs_define
class ConflictResolution:
    """What a person chose for one conflict.

    Attributes:
        conflict (str): The conflict's id, as the preview or the 409 named it.
        resolution (Resolution): The ways to settle a conflict.
            - `keep_target`: The target's side stands: the source's messages in the conflict stay out of the merge (with the
            messages that depend on them).
            - `take_source`: The source's side stands: its messages are merged and the target's messages in the conflict
            leave the target branch (they stay stored and on every other branch).
            - `keep_both`: Both sides stay, the source's after the target's.
            - `skip`: Neither side: the target's messages in the conflict leave the target branch and the source's stay out.
    """

    conflict: str
    resolution: Resolution
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        conflict = self.conflict

        resolution = self.resolution.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "conflict": conflict,
                "resolution": resolution,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        conflict = d.pop("conflict")

        resolution = Resolution(d.pop("resolution"))

        conflict_resolution = cls(
            conflict=conflict,
            resolution=resolution,
        )

        conflict_resolution.additional_properties = d
        return conflict_resolution

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

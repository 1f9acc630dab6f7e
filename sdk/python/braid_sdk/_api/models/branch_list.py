from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.branch_info import BranchInfo


T = TypeVar("T", bound="BranchList")


@_attrs_define
class BranchList:
    """`GET /v1/contexts/{id}/branches`.

    Attributes:
        active (str): The name of a branch within a context, unique in that context (`main` by default).
        branches (list[BranchInfo]): Every branch.
    """

    active: str
    branches: list[BranchInfo]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        active = self.active

        branches = []
        for branches_item_data in self.branches:
            branches_item = branches_item_data.to_dict()
            branches.append(branches_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "active": active,
                "branches": branches,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.branch_info import BranchInfo

        d = dict(src_dict)
        active = d.pop("active")

        branches = []
        _branches = d.pop("branches")
        for branches_item_data in _branches:
            branches_item = BranchInfo.from_dict(branches_item_data)

            branches.append(branches_item)

        branch_list = cls(
            active=active,
            branches=branches,
        )

        branch_list.additional_properties = d
        return branch_list

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

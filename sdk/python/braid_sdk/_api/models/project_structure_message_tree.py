from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.directory_node import DirectoryNode


T = TypeVar("T", bound="ProjectStructureMessageTree")


@_attrs_define
class ProjectStructureMessageTree:
    """A directory tree.

    Attributes:
        content (DirectoryNode): A directory and what it holds.
        excluded_patterns (list[str]): Glob patterns that were left out (`.git`, `node_modules`, `target`, ...).
        generated_at (datetime.datetime): When the snapshot was taken. Default:
            datetime.datetime.fromisoformat('1970-01-01T00:00:00Z').
        root_path (str): The workspace root the paths are relative to.
        structure_type (Literal['tree']):
    """

    content: DirectoryNode
    excluded_patterns: list[str]
    root_path: str
    structure_type: Literal["tree"]
    generated_at: datetime.datetime = datetime.datetime.fromisoformat(
        "1970-01-01T00:00:00Z"
    )
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content = self.content.to_dict()

        excluded_patterns = self.excluded_patterns

        generated_at = self.generated_at.isoformat()

        root_path = self.root_path

        structure_type = self.structure_type

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content": content,
                "excluded_patterns": excluded_patterns,
                "generated_at": generated_at,
                "root_path": root_path,
                "structure_type": structure_type,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.directory_node import DirectoryNode

        d = dict(src_dict)
        content = DirectoryNode.from_dict(d.pop("content"))

        excluded_patterns = cast(list[str], d.pop("excluded_patterns"))

        generated_at = datetime.datetime.fromisoformat(d.pop("generated_at"))

        root_path = d.pop("root_path")

        structure_type = cast(Literal["tree"], d.pop("structure_type"))
        if structure_type != "tree":
            raise ValueError(
                f"structure_type must match const 'tree', got '{structure_type}'"
            )

        project_structure_message_tree = cls(
            content=content,
            excluded_patterns=excluded_patterns,
            generated_at=generated_at,
            root_path=root_path,
            structure_type=structure_type,
        )

        project_structure_message_tree.additional_properties = d
        return project_structure_message_tree

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

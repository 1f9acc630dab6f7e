from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.progress import Progress


T = TypeVar("T", bound="ProcessingMessage")


@_attrs_define
class ProcessingMessage:
    """Work in progress.

    Attributes:
        activity (str): What is being done, e.g. `Recognizing image`; [`DEFAULT_ACTIVITY`] when absent. Default:
            'Working'.
        detail (None | str | Unset): More detail, when useful.
        progress (None | Progress | Unset): Progress so far, when countable.
    """

    activity: str = "Working"
    detail: None | str | Unset = UNSET
    progress: None | Progress | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.progress import Progress

        activity = self.activity

        detail: None | str | Unset
        if isinstance(self.detail, Unset):
            detail = UNSET
        else:
            detail = self.detail

        progress: dict[str, Any] | None | Unset
        if isinstance(self.progress, Unset):
            progress = UNSET
        elif isinstance(self.progress, Progress):
            progress = self.progress.to_dict()
        else:
            progress = self.progress

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "activity": activity,
            }
        )
        if detail is not UNSET:
            field_dict["detail"] = detail
        if progress is not UNSET:
            field_dict["progress"] = progress

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.progress import Progress

        d = dict(src_dict)
        activity = d.pop("activity")

        def _parse_detail(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        detail = _parse_detail(d.pop("detail", UNSET))

        def _parse_progress(data: object) -> None | Progress | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                progress_type_0 = Progress.from_dict(data)

                return progress_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Progress | Unset, data)

        progress = _parse_progress(d.pop("progress", UNSET))

        processing_message = cls(
            activity=activity,
            detail=detail,
            progress=progress,
        )

        processing_message.additional_properties = d
        return processing_message

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

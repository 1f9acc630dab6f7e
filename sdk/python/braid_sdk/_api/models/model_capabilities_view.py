from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.count_figure import CountFigure
    from ..models.flag_figure import FlagFigure
    from ..models.tool_calling_figure import ToolCallingFigure


T = TypeVar("T", bound="ModelCapabilitiesView")


@_attrs_define
class ModelCapabilitiesView:
    """The capabilities in force for a context's model.

    Attributes:
        context_window (CountFigure): A numeric capability figure (tokens) and its source.
        max_output_tokens (CountFigure): A numeric capability figure (tokens) and its source.
        model (str): The model they describe.
        tool_calling (ToolCallingFigure): How the model calls tools, and where that came from.
        vision (FlagFigure): A yes/no capability figure and its source.
    """

    context_window: CountFigure
    max_output_tokens: CountFigure
    model: str
    tool_calling: ToolCallingFigure
    vision: FlagFigure
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        context_window = self.context_window.to_dict()

        max_output_tokens = self.max_output_tokens.to_dict()

        model = self.model

        tool_calling = self.tool_calling.to_dict()

        vision = self.vision.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "context_window": context_window,
                "max_output_tokens": max_output_tokens,
                "model": model,
                "tool_calling": tool_calling,
                "vision": vision,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.count_figure import CountFigure
        from ..models.flag_figure import FlagFigure
        from ..models.tool_calling_figure import ToolCallingFigure

        d = dict(src_dict)
        context_window = CountFigure.from_dict(d.pop("context_window"))

        max_output_tokens = CountFigure.from_dict(d.pop("max_output_tokens"))

        model = d.pop("model")

        tool_calling = ToolCallingFigure.from_dict(d.pop("tool_calling"))

        vision = FlagFigure.from_dict(d.pop("vision"))

        model_capabilities_view = cls(
            context_window=context_window,
            max_output_tokens=max_output_tokens,
            model=model,
            tool_calling=tool_calling,
            vision=vision,
        )

        model_capabilities_view.additional_properties = d
        return model_capabilities_view

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

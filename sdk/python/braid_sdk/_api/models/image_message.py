from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.recognition_mode import RecognitionMode
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.error_detail import ErrorDetail
    from ..models.image_source_base_64 import ImageSourceBase64
    from ..models.image_source_file_path import ImageSourceFilePath
    from ..models.image_source_url import ImageSourceUrl
    from ..models.prepared_image import PreparedImage
    from ..models.recognition_result import RecognitionResult


T = TypeVar("T", bound="ImageMessage")


@_attrs_define
class ImageMessage:
    """An image and what was recognized in it.

    Attributes:
        recognition_mode (RecognitionMode): How an image is to be recognized.
            - `vision`: Send the image to a vision-capable model.
            - `ocr`: Extract its text with an OCR engine (Tesseract).
            - `auto`: Vision when the model has it, falling back to OCR.
        source (ImageSourceBase64 | ImageSourceFilePath | ImageSourceUrl): Where an image's bytes come from.
        caption (None | str | Unset): Text the person sent with the image.
        error (ErrorDetail | None | Unset): Why recognition failed, when it did.
        prepared (None | PreparedImage | Unset): The image as a vision model is sent it, when that differs from
            `source`: loaded from a
            file or URL, or sized down to the provider's limits.
        recognition (None | RecognitionResult | Unset): What recognition produced, once it ran.
    """

    recognition_mode: RecognitionMode
    source: ImageSourceBase64 | ImageSourceFilePath | ImageSourceUrl
    caption: None | str | Unset = UNSET
    error: ErrorDetail | None | Unset = UNSET
    prepared: None | PreparedImage | Unset = UNSET
    recognition: None | RecognitionResult | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.error_detail import ErrorDetail
        from ..models.image_source_base_64 import ImageSourceBase64
        from ..models.image_source_url import ImageSourceUrl
        from ..models.prepared_image import PreparedImage
        from ..models.recognition_result import RecognitionResult

        recognition_mode = self.recognition_mode.value

        source: dict[str, Any]
        if isinstance(self.source, ImageSourceUrl) or isinstance(
            self.source, ImageSourceBase64
        ):
            source = self.source.to_dict()
        else:
            source = self.source.to_dict()

        caption: None | str | Unset
        if isinstance(self.caption, Unset):
            caption = UNSET
        else:
            caption = self.caption

        error: dict[str, Any] | None | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        elif isinstance(self.error, ErrorDetail):
            error = self.error.to_dict()
        else:
            error = self.error

        prepared: dict[str, Any] | None | Unset
        if isinstance(self.prepared, Unset):
            prepared = UNSET
        elif isinstance(self.prepared, PreparedImage):
            prepared = self.prepared.to_dict()
        else:
            prepared = self.prepared

        recognition: dict[str, Any] | None | Unset
        if isinstance(self.recognition, Unset):
            recognition = UNSET
        elif isinstance(self.recognition, RecognitionResult):
            recognition = self.recognition.to_dict()
        else:
            recognition = self.recognition

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "recognition_mode": recognition_mode,
                "source": source,
            }
        )
        if caption is not UNSET:
            field_dict["caption"] = caption
        if error is not UNSET:
            field_dict["error"] = error
        if prepared is not UNSET:
            field_dict["prepared"] = prepared
        if recognition is not UNSET:
            field_dict["recognition"] = recognition

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.error_detail import ErrorDetail
        from ..models.image_source_base_64 import ImageSourceBase64
        from ..models.image_source_file_path import ImageSourceFilePath
        from ..models.image_source_url import ImageSourceUrl
        from ..models.prepared_image import PreparedImage
        from ..models.recognition_result import RecognitionResult

        d = dict(src_dict)
        recognition_mode = RecognitionMode(d.pop("recognition_mode"))

        def _parse_source(
            data: object,
        ) -> ImageSourceBase64 | ImageSourceFilePath | ImageSourceUrl:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_image_source_type_0 = ImageSourceUrl.from_dict(data)

                return componentsschemas_image_source_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_image_source_type_1 = ImageSourceBase64.from_dict(
                    data
                )

                return componentsschemas_image_source_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_image_source_type_2 = ImageSourceFilePath.from_dict(data)

            return componentsschemas_image_source_type_2

        source = _parse_source(d.pop("source"))

        def _parse_caption(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        caption = _parse_caption(d.pop("caption", UNSET))

        def _parse_error(data: object) -> ErrorDetail | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = ErrorDetail.from_dict(data)

                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ErrorDetail | None | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_prepared(data: object) -> None | PreparedImage | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                prepared_type_0 = PreparedImage.from_dict(data)

                return prepared_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PreparedImage | Unset, data)

        prepared = _parse_prepared(d.pop("prepared", UNSET))

        def _parse_recognition(data: object) -> None | RecognitionResult | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                recognition_type_0 = RecognitionResult.from_dict(data)

                return recognition_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RecognitionResult | Unset, data)

        recognition = _parse_recognition(d.pop("recognition", UNSET))

        image_message = cls(
            recognition_mode=recognition_mode,
            source=source,
            caption=caption,
            error=error,
            prepared=prepared,
            recognition=recognition,
        )

        image_message.additional_properties = d
        return image_message

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

"""Messages of the one trajectory shape, prepared for the templates: what to show, what to
collapse, and what to leave out of the page and fetch on demand."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.conf import settings
from django.urls import reverse
from django.utils.safestring import SafeString

from .text import as_text, first_line, human_size, is_video, maybe_pretty_json, pretty_json, safe_media_path

ROLES = ("system", "user", "assistant", "tool")
# Fields message_body can serve on its own, because they may be too long to ship with the page.
LAZY_FIELDS = ("content", "reasoning", "axtree")
_OBSERVATION_SHOWN = {"url", "axtree", "screenshot", "screenshot_after"}


@dataclass(frozen=True)
class Limits:
    collapse: int
    lazy: int

    @classmethod
    def from_settings(cls) -> Limits:
        return cls(collapse=settings.ARBITER["COLLAPSE_CHARS"], lazy=settings.ARBITER["LAZY_CHARS"])


@dataclass(frozen=True)
class Links:
    """URLs a rendered message points at: its own long fields and the project's media."""

    slug: str
    item_id: int

    def body(self, part: str, index: int, field_name: str = "content") -> str:
        url = reverse("message_body", args=[self.slug, self.item_id, part, index])
        return url if field_name == "content" else f"{url}?field={field_name}"

    def media(self, path: object) -> str | None:
        safe = safe_media_path(path)
        return reverse("media_file", args=[self.slug, safe]) if safe else None


@dataclass(slots=True)
class LongText:
    """A text field that is shown in full, collapsed, or left out (lazy) with a preview."""

    text: str  # empty when lazy
    size: int
    collapsed: bool = False
    lazy_url: str = ""
    preview: str = ""
    is_json: bool = False

    @property
    def size_label(self) -> str:
        return human_size(self.size)


@dataclass(slots=True)
class ToolCallView:
    id: str
    name: str
    arguments: str  # pretty JSON, or the raw string when the arguments did not parse
    malformed: bool
    unknown_tool: bool
    diff: SafeString | None = None


@dataclass(slots=True)
class MediaView:
    path: str
    url: str | None  # None: not a project media path; shown as text only
    video: bool
    label: str = ""


@dataclass(slots=True)
class ObservationView:
    url: str
    axtree: LongText | None
    screenshots: list[MediaView]
    extra: str  # pretty JSON of keys we have no special display for


@dataclass(slots=True)
class MessageView:
    index: int
    part: str
    role: str
    role_class: str
    name: str = ""
    tool_call_id: str = ""
    content: LongText | None = None
    reasoning: LongText | None = None
    tool_calls: list[ToolCallView] = field(default_factory=list)
    observation: ObservationView | None = None
    media: list[MediaView] = field(default_factory=list)
    content_diff: SafeString | None = None

    @property
    def has_malformed(self) -> bool:
        return any(call.malformed for call in self.tool_calls)


def _content(message: dict) -> tuple[str, bool]:
    text = as_text(message.get("content"))
    if message.get("role") == "tool":
        return maybe_pretty_json(text)
    return text, False


def message_text(message: dict, field_name: str) -> str:
    """The full text of one long field, exactly as the page would have shown it."""
    if field_name == "content":
        return _content(message)[0]
    if field_name == "reasoning":
        return as_text(message.get("reasoning"))
    if field_name == "axtree":
        observation = message.get("observation")
        return as_text(observation.get("axtree")) if isinstance(observation, dict) else ""
    raise ValueError(f"unknown field {field_name!r}")


def _long_text(
    text: str, *, collapse_at: int | None, limits: Limits, url: str, is_json: bool = False
) -> LongText:
    size = len(text)
    if size > limits.lazy:
        # The page carries a short preview only; the rest comes from message_body on demand.
        preview = text[:400].rstrip() + "…"
        return LongText(text="", size=size, collapsed=True, lazy_url=url, preview=preview, is_json=is_json)
    collapsed = collapse_at is not None and size > collapse_at
    return LongText(text=text, size=size, collapsed=collapsed, preview=first_line(text), is_json=is_json)


def _tool_call(call: object, known_tools: frozenset[str] | None) -> ToolCallView:
    if not isinstance(call, dict):
        return ToolCallView(id="", name="?", arguments=pretty_json(call), malformed=True, unknown_tool=False)
    # The interchange shape is flat; OpenAI's nested {"function": {...}} is read too.
    function = call.get("function") if isinstance(call.get("function"), dict) else {}
    name = str(call.get("name") or function.get("name") or "?")
    args = call["arguments"] if "arguments" in call else function.get("arguments")
    malformed = isinstance(args, dict) and "_raw" in args
    if malformed:
        text = as_text(args["_raw"]) if len(args) == 1 else pretty_json(args)
    elif isinstance(args, str):
        text, parsed = maybe_pretty_json(args)
        malformed = not parsed and bool(args.strip())
    else:
        text = pretty_json(args if args is not None else {})
    return ToolCallView(
        id=str(call.get("id") or ""),
        name=name,
        arguments=text,
        malformed=malformed,
        unknown_tool=known_tools is not None and name not in known_tools,
    )


def _observation(
    obs: object, *, links: Links, limits: Limits, part: str, index: int
) -> ObservationView | None:
    if not isinstance(obs, dict) or not obs:
        return None
    axtree = as_text(obs.get("axtree"))
    shots = [
        MediaView(path=str(obs[key]), url=links.media(obs[key]), video=False, label=key.replace("_", " "))
        for key in ("screenshot", "screenshot_after")
        if obs.get(key)
    ]
    extra = {k: v for k, v in obs.items() if k not in _OBSERVATION_SHOWN}
    return ObservationView(
        url=as_text(obs.get("url")),
        axtree=_long_text(
            axtree,
            collapse_at=None,  # always inside its own <details>
            limits=limits,
            url=links.body(part, index, "axtree") if len(axtree) > limits.lazy else "",
        )
        if axtree
        else None,
        screenshots=shots,
        extra=pretty_json(extra) if extra else "",
    )


def message_view(
    message: object,
    *,
    index: int,
    part: str,
    links: Links,
    limits: Limits,
    known_tools: frozenset[str] | None = None,
) -> MessageView:
    if not isinstance(message, dict):
        message = {"role": "other", "content": pretty_json(message)}
    role = str(message.get("role") or "other")
    view = MessageView(
        index=index,
        part=part,
        role=role,
        role_class=role if role in ROLES else "other",
        name=str(message.get("name") or ""),
        tool_call_id=str(message.get("tool_call_id") or ""),
    )
    text, is_json = _content(message)
    if text:
        view.content = _long_text(
            text,
            # Tool outputs are collapsed when long; what the agent and user said is read in full.
            collapse_at=limits.collapse if role == "tool" else None,
            limits=limits,
            url=links.body(part, index) if len(text) > limits.lazy else "",
            is_json=is_json,
        )
    reasoning = message_text(message, "reasoning")
    if reasoning:
        view.reasoning = _long_text(
            reasoning,
            collapse_at=None,  # always inside its own <details>
            limits=limits,
            url=links.body(part, index, "reasoning") if len(reasoning) > limits.lazy else "",
        )
    view.tool_calls = [_tool_call(call, known_tools) for call in (message.get("tool_calls") or ())]
    view.observation = _observation(
        message.get("observation"), links=links, limits=limits, part=part, index=index
    )
    media = message.get("media") or ()
    if isinstance(media, str):
        media = [media]
    view.media = [media_view(path, links) for path in media]
    return view


def media_view(path: object, links: Links) -> MediaView:
    url = links.media(path)
    return MediaView(path=str(path), url=url, video=bool(url) and is_video(str(path)))


def message_views(
    messages: Iterable[object],
    *,
    part: str,
    links: Links,
    limits: Limits,
    known_tools: frozenset[str] | None = None,
) -> list[MessageView]:
    return [
        message_view(m, index=i, part=part, links=links, limits=limits, known_tools=known_tools)
        for i, m in enumerate(messages)
    ]

"""JSON Schemas (Draft 2020-12) of every record kind in formats/README.md.

They check shape only; rules that span fields (a PCA answer among its candidates, one reference
step candidate, known tool environments, media on disk) live in `checks`. Lengths mirror the
database columns so that a valid line can always be written.
"""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

RECORD_KINDS = ("pair", "step", "trace", "pca", "recording", "query")
ALL_KINDS = ("tool_env", *RECORD_KINDS)

_STR = {"type": "string"}
_OPT_STR = {"type": ["string", "null"]}


def _short(n: int) -> dict[str, Any]:
    return {"type": "string", "maxLength": n}


RECORD_ID = {"type": "string", "minLength": 1, "maxLength": 200}

TOOL_CALL = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "id": _OPT_STR,
        "name": {"type": "string", "minLength": 1},
        # A string is parsed at import; one that is not JSON is kept and flagged (adapters).
        "arguments": {"type": ["object", "string", "null"]},
    },
}

MESSAGE = {
    "type": "object",
    "required": ["role"],
    "properties": {
        "role": {"enum": ["system", "user", "assistant", "tool"]},
        "content": _OPT_STR,
        "reasoning": _OPT_STR,
        "tool_calls": {"type": ["array", "null"], "items": TOOL_CALL},
        "tool_call_id": _OPT_STR,
        "name": _OPT_STR,
        "observation": {
            "type": ["object", "null"],
            "properties": {
                "url": _OPT_STR,
                "axtree": _OPT_STR,
                "screenshot": _OPT_STR,
                "screenshot_after": _OPT_STR,
            },
        },
        "media": {"type": "array", "items": _STR},
    },
}

MESSAGES = {"type": "array", "items": MESSAGE}

TRAJECTORY = {
    "type": "object",
    "required": ["messages"],
    "properties": {"messages": {**MESSAGES, "minItems": 1}, "source": {"type": "object"}},
}

TYPED_IO = {
    "type": "object",
    "required": ["name", "type"],
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "type": {"type": "string", "minLength": 1},
        "description": _OPT_STR,
        "optional": {"type": "boolean"},
    },
}

TOOL = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "description": _OPT_STR,
        "parameters": {"type": "object"},
        "returns": {"type": "object"},
        "inputs": {"type": "array", "items": TYPED_IO},
        "outputs": {"type": "array", "items": TYPED_IO},
    },
}

TOOL_ENV_BODY = {
    "required": ["id", "tools"],
    "properties": {
        "id": {"type": "string", "minLength": 1, "maxLength": 200},
        "tools": {"type": "array", "items": TOOL},
    },
}

# A record's `tool_env` names a registered environment or embeds one; `required` and
# `properties` only bind objects, `minLength` only strings.
TOOL_ENV_REF = {"type": ["string", "object"], "minLength": 1, "maxLength": 200, **TOOL_ENV_BODY}


def _record(kind: str, required: list[str], properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["kind", "id", *required],
        "properties": {"kind": {"const": kind}, "id": RECORD_ID, "meta": {"type": "object"}, **properties},
    }


TOOL_ENV_RECORD = {
    "type": "object",
    "required": ["kind", *TOOL_ENV_BODY["required"]],
    "properties": {"kind": {"const": "tool_env"}, **TOOL_ENV_BODY["properties"]},
}

PAIR = _record(
    "pair",
    ["chosen", "rejected"],
    {
        "tool_env": TOOL_ENV_REF,
        "context": MESSAGES,
        "chosen": TRAJECTORY,
        "rejected": TRAJECTORY,
        "meta": {
            "type": "object",
            "properties": {"family": _short(64), "bucket": _short(64), "pair_difficulty": _short(32)},
        },
    },
)

_WEB_TASK = {
    "instruction": {"type": "string", "minLength": 1},
    "website": _short(300),
    "start_url": _short(2000),
    "difficulty": _short(32),
}

STEP = _record(
    "step",
    ["task", "prefix", "checklist", "candidates"],
    {
        "task": {"type": "object", "required": ["instruction"], "properties": _WEB_TASK},
        "prefix": MESSAGES,
        "checklist": {
            "type": "array",
            "maxItems": 5,
            "items": {
                "type": "object",
                "required": ["title"],
                "properties": {"title": _STR, "goal": _OPT_STR},
            },
        },
        "candidates": {
            "type": "array",
            "minItems": 1,
            "maxItems": 5,
            "items": {
                "type": "object",
                "required": ["id", "action"],
                "properties": {
                    "id": {"type": "string", "minLength": 1},
                    "thought": _OPT_STR,
                    "action": TOOL_CALL,
                    "source": {"type": "object"},
                    "reference": {"type": "boolean"},
                },
            },
        },
    },
)

_FINAL_ANSWER = {
    "type": "object",
    "required": ["value"],
    "properties": {"justification": _OPT_STR},
}
_TRACE_COMMON = {
    "tool_env": TOOL_ENV_REF,
    "query": {"type": "string", "minLength": 1},
    "media": {"type": "array", "items": _STR},
    "environment": {"type": ["string", "null"], "maxLength": 64},
    "final_answer": _FINAL_ANSWER,
}

TRACE = _record("trace", ["query", "trajectory", "final_answer"], {**_TRACE_COMMON, "trajectory": TRAJECTORY})

# Agent-X's own shape; `tool`/`tool_used` and `final_answer`/`final_output` both occur.
TRACE_AGENTX = _record(
    "trace",
    ["query", "reasoning_steps"],
    {
        **_TRACE_COMMON,
        "reasoning_steps": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "step": {"type": ["integer", "string"]},
                    "task": _OPT_STR,
                    "tool": _OPT_STR,
                    "tool_used": _OPT_STR,
                    "arguments": {"type": ["object", "string", "null"]},
                    "thought": _OPT_STR,
                },
            },
        },
        "final_output": {
            "type": "object",
            "required": ["final_answer"],
            "properties": {"justification": _OPT_STR},
        },
    },
)

PCA = _record(
    "pca",
    ["instance", "output"],
    {
        "instance": {
            "type": "object",
            "required": ["domain", "image", "question", "candidates", "answer"],
            "properties": {
                "domain": {"type": "string", "minLength": 1, "maxLength": 64},
                "image": {"type": "string", "minLength": 1},
                "question": {"type": "string", "minLength": 1},
                "candidates": {"type": "array", "minItems": 1, "items": _STR},
                "answer": _STR,
                "reason": _OPT_STR,
                "key_concepts": {"type": "array", "items": _STR},
                "context": _OPT_STR,
            },
        },
        "output": {"type": "object", "required": ["text"], "properties": {"model": _OPT_STR, "text": _STR}},
    },
)

RECORDING = _record(
    "recording",
    ["task"],
    {
        "task": {
            "type": "object",
            "required": ["instruction", "start_url"],
            "properties": {
                **_WEB_TASK,
                "start_url": {"type": "string", "minLength": 1, "maxLength": 2000},
                "judge": {
                    "type": "object",
                    "required": ["type", "value"],
                    "properties": {
                        "type": {"enum": ["url_match", "answer_match", "page_contains"]},
                        "value": _STR,
                    },
                },
            },
        },
    },
)

# Our addition to the interchange format (docs/formats.md): candidate queries for a visual, to
# pick, edit or reject before tracing (Agent-X). Blank and repeated candidates: `checks`.
MAX_QUERY_CANDIDATES = 5
QUERY_TEXT_MAX = 4000  # the label's `query` holds at most this much

QUERY = _record(
    "query",
    ["media", "candidates"],
    {
        "tool_env": TOOL_ENV_REF,
        "media": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
        "environment": {"type": ["string", "null"], "maxLength": 64},
        "candidates": {
            "type": "array",
            "minItems": 2,
            "maxItems": MAX_QUERY_CANDIDATES,
            "items": {"type": "string", "minLength": 1, "maxLength": QUERY_TEXT_MAX},
        },
        "source": {"type": "object", "properties": {"model": _OPT_STR}},
    },
)

SCHEMAS: dict[str, dict[str, Any]] = {
    "tool_env": TOOL_ENV_RECORD,
    "pair": PAIR,
    "step": STEP,
    "trace": TRACE,
    "trace_agentx": TRACE_AGENTX,
    "pca": PCA,
    "recording": RECORDING,
    "query": QUERY,
}
for _schema in SCHEMAS.values():
    Draft202012Validator.check_schema(_schema)
VALIDATORS = {name: Draft202012Validator(schema) for name, schema in SCHEMAS.items()}

"""Dev LLM server: an OpenAI-compatible endpoint that answers Arbiter's judge protocols
deterministically, with switchable latency and faults. See README.md for the conventions."""

from workers.devllm.server import DevLLMServer, Switches

__all__ = ["DevLLMServer", "Switches"]

"""The reference as an adapter whose every refusal names its own reason code (`OWN_<code>`), as
a client without the spec's reason codes answers."""

from typing import Any

from swarmconf.conformance.adapter import builtin_adapter, serve


class Renaming:
    def __init__(self) -> None:
        self.adapter = builtin_adapter("reference")

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        answer = self.adapter.handle(request)
        if "reason" in answer:
            return {**answer, "reason": f"OWN_{answer['reason']}"}
        return answer


if __name__ == "__main__":
    serve(Renaming())

"""Guards for autoregressive decoding: stop a sequence that has started to loop."""

from dataclasses import dataclass, field

MAX_PERIOD = 24  # longest repeating unit looked for, in tokens
MIN_REPEATS = 4  # a unit repeated this many times in a row at the end means the decoder is looping
MIN_LOOP_TOKENS = 8  # and the repeats cover at least this many tokens ("}}}}" closes nested groups)


@dataclass
class RepetitionGuard:
    """Watches one sequence; `looping` says when its tail is a unit repeated MIN_REPEATS times."""

    tokens: list[int] = field(default_factory=list)
    keep: int = 0  # once looping: how many tokens to keep (up to the end of the first repeat)

    def looping(self, token: int) -> bool:
        self.tokens.append(token)
        for period in range(1, MAX_PERIOD + 1):
            span = period * max(MIN_REPEATS, -(-MIN_LOOP_TOKENS // period))
            if len(self.tokens) < span:
                break
            tail = self.tokens[-span:]
            if all(tail[i] == tail[i % period] for i in range(span)):
                self.keep = len(self.tokens) - span + period
                return True
        return False

    def trimmed(self, output: list[int]) -> list[int]:
        """The output with the repeats beyond the first dropped, once a loop was seen."""
        return output[:self.keep] if self.keep else output

"""Where a design's expectation comes from: the documents keybench cites, by title, and each
strategy's provenance (the section, the phrase quoted, and why it expects what it expects)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from keybench.errors import FixtureError

# The source documents keybench is built from, by title: the one home of their names.
SPANNER_BEST_PRACTICES = "Spanner: Schema design best practices"
SPANNER_KEY_MIGRATION = "Spanner: Primary key migration strategies"
BIGTABLE_BEST_PRACTICES = "Bigtable: Schema design best practices"
SPANNER_OPTIMIZING = "Optimizing schema design for Cloud Spanner"
DOCUMENTS = (SPANNER_BEST_PRACTICES, SPANNER_KEY_MIGRATION, BIGTABLE_BEST_PRACTICES, SPANNER_OPTIMIZING)
# A strategy's expected key distribution: writes pile up at one end of the key space, on one
# row, or spread over it.
DISTRIBUTIONS = ("hotspot", "hot_row", "spread")
NOT_IN_THE_DOCUMENTS = "not in the documents"
YOUR_OWN_DESIGN = "your own design"


@dataclass(frozen=True)
class Provenance:
    """Where a strategy comes from: a document's title and section with the phrase relied on
    (quoted in the document's language, with an English gloss), or keybench's own reason."""

    title: str = ""  # one of DOCUMENTS; empty: the design is keybench's own addition
    section: str = ""
    phrase: str = ""
    gloss: str = ""
    # Whether the phrase states the expected distribution, or only supports the advice (the
    # distribution is then keybench's expectation, `expected_because` says why).
    states_distribution: bool = False
    expected_because: str = ""
    reason: str = ""  # not in the documents: why keybench includes the design
    user: str = ""  # a user's own design: where it comes from (no document, no expected distribution)

    @property
    def cited(self) -> bool:
        return bool(self.title)

    def text(self) -> str:
        """One line: `Title, section "Section": "phrase" (gloss)`, or `not in the documents: reason`."""
        if self.user:
            return f"{YOUR_OWN_DESIGN}: {self.user}"
        if not self.cited:
            return f"{NOT_IN_THE_DOCUMENTS} (keybench's own addition): {self.reason}"
        gloss = f" ({self.gloss})" if self.gloss else ""
        return f'{self.title}, section "{self.section}": "{self.phrase}"{gloss}'


PROVENANCE_KEYS = {"user", "title", "section", "phrase", "gloss", "states", "expected_because", "not_in_the_documents"}


def _provenance(path: Path, spec) -> Provenance:
    """The [source] table of a strategy.toml: a document's title, section and phrase, with
    `states = "distribution"` or `"advice"`; or `not_in_the_documents = "<reason>"`."""
    if not isinstance(spec, dict) or not spec:
        raise FixtureError.malformed(path, "needs a [source] table: title, section, phrase and states, "
                                   "or not_in_the_documents = \"<reason>\"")
    unknown = set(spec) - PROVENANCE_KEYS
    if unknown:
        raise FixtureError.malformed(path, f"[source]: unknown key(s) {sorted(unknown)}")
    text = {k: " ".join(str(v).split()) for k, v in spec.items()}
    if "user" in text:
        if set(text) != {"user"} or not text["user"]:
            raise FixtureError.malformed(path, "[source]: user takes where your own design comes from and nothing else")
        return Provenance(user=text["user"])
    if "not_in_the_documents" in text:
        if set(text) - {"not_in_the_documents", "expected_because"} or not text["not_in_the_documents"]:
            raise FixtureError.malformed(path, "[source]: not_in_the_documents takes a reason and nothing else")
        return Provenance(reason=text["not_in_the_documents"], expected_because=text.get("expected_because", ""))
    if text.get("title") not in DOCUMENTS:
        raise FixtureError.malformed(path,
                                     f"[source]: title must be one of {list(DOCUMENTS)}, got {text.get('title')!r}")
    if not text.get("section") or not text.get("phrase"):
        raise FixtureError.malformed(path, "[source]: a cited document needs its section and the phrase relied on")
    if text.get("states") not in ("distribution", "advice"):
        raise FixtureError.malformed(path, '[source]: states must be "distribution" or "advice"')
    if text["states"] == "advice" and not text.get("expected_because"):
        raise FixtureError.malformed(path, "[source]: a phrase that states only advice needs expected_because")
    return Provenance(text["title"], text["section"], text["phrase"], text.get("gloss", ""),
                      text["states"] == "distribution", text.get("expected_because", ""))

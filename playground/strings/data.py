"""What the data side says: corpus, tokenizers, bundles, shared links, export, runs
(see playground.strings)."""

EN: dict[str, str] = {
}

ZH_CN: dict[str, str] = {
}

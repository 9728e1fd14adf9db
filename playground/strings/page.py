"""What the page's handlers write: status lines, summaries, progress, errors of the tabs
(see playground.strings)."""

EN: dict[str, str] = {
    "title_cannot": "Cannot do that yet",
    "title_unexpected": "Unexpected error",
}

ZH_CN: dict[str, str] = {
    "title_cannot": "暂时无法这样做",
    "title_unexpected": "意外错误",
}

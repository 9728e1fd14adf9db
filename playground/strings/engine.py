"""What the engine says: settings (config), training (train), devices, the model, generation
(see playground.strings)."""

EN: dict[str, str] = {
}

ZH_CN: dict[str, str] = {
}

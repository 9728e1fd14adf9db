"""What the page's handlers write: status lines, summaries, progress, errors of the tabs
(see playground.strings)."""

EN: dict[str, str] = {
    # --- titles of the page's error messages ----------------------------------------------------
    "title_cannot": "Cannot do that yet",
    "title_info": "Note",
    "title_warning": "Warning",
    "title_unexpected": "Unexpected error",
    "title_no_model": "No model yet",
    "title_already_training": "Already training",
    # --- no model yet (session.require_model): what the visitor wanted ---------------------------
    "page_no_model": "There is no model to {action} yet. Train one on the 'Model & training' tab "
                     "(or upload a bundle there) first.",
    "page_action_generate": "generate with",
    "page_action_look_inside": "look inside",
    "page_action_continue": "continue training",
    "page_action_export": "export",
    "page_action_push": "push",
    # --- 1 · corpus -------------------------------------------------------------------------------
    "corpus_status_summary": "**Corpus: {name}** · {characters} characters · {lines} lines · "
                             "{words} words · {distinct} distinct characters.",
    "corpus_status_next": "Next: train a tokenizer on it (tab 2).",
    "corpus_status_no_file": "No file yet: drop one or more .txt or .md files in the box above.",
    "corpus_status_unknown_source": "Unknown source {source}: choose one of {choices}.",
    # --- 2 · tokenizer ----------------------------------------------------------------------------
    "tok_status_trained_char": "**Character tokenizer trained on {name}:** {vocab} tokens in the "
                               "vocabulary · {chars_per_token} characters per token on average.",
    "tok_status_trained_bpe": "**BPE tokenizer trained on {name}:** {vocab} tokens in the "
                              "vocabulary · {chars_per_token} characters per token on average.",
    "tok_status_vocab_smaller": "This text only supports {actual} BPE tokens, fewer than the "
                                "{requested} asked for (no other pair of tokens occurs twice). The "
                                "smaller vocabulary is used; a longer text would allow more.",
    "tok_status_note": "**Note:** {note}",
    "tok_status_next": "Next: set up and train a model (tab 3).",
    "tok_status_merges_title": "**First merges learned** (␣ is a space):",
    "tok_status_merges_zero": "0 / {total}: {n} tokens (bytes)",
    "tok_status_merge_caption": "{merge} · {n} tokens",
    # --- 3 · model and training -------------------------------------------------------------------
    "train_status_unknown_preset": "Unknown preset {name}: choose one of {choices}.",
    "train_status_empty": "{name} is empty: type a value.",
    "train_status_count": "Expected {expected} settings, got {got}.",
    "train_status_check": "**Check the settings:** {error}",
    "train_status_summary": "**{params} parameters** · about **{memory}** of memory to train · "
                            "{tokens} tokens per step · {steps} steps.",
    "train_status_summary_default_vocab": "**{params} parameters** (vocabulary {vocab} until you "
                                          "train a tokenizer) · about **{memory}** of memory to "
                                          "train · {tokens} tokens per step · {steps} steps.",
    "train_status_bytes": "{n} bytes",
    "train_status_device": "**Device:** {device}",
    "train_status_device_zerogpu": "**Device:** ZeroGPU: a GPU is attached for each stretch of "
                                   "training.",
    "train_status_device_unknown": "**Device:** unknown (PyTorch could not describe it).",
    "train_status_progress": "**Training:** step {step} / {max_steps} · {tokens_per_s} tokens/s · "
                             "elapsed {elapsed} · about {left} left · train loss {loss}",
    "train_status_progress_val": "validation loss {val_loss} (step {step})",
    "train_status_sample_head": "── step {step} · validation loss {val_loss} ──",
    "train_status_already_pending": "A training run is already going (or waiting for its turn). "
                                    "Press Stop first, or wait for it to finish.",
    "train_status_already_running": "A training run is already going in this session; press "
                                    "Stop first.",
    "train_status_nothing_running": "Nothing is training right now.",
    "train_status_stopping": "Stopping after the current step…",
    "train_status_already_trained": "The model has already trained {done} steps. Set max_steps "
                                    "above {done} to train it further.",
    "train_status_auto_char": "No tokenizer was trained yet, so this run reads the text "
                              "character by character ({vocab} distinct characters). The "
                              "Tokenizer tab (tab 2) can train a BPE tokenizer instead.",
    "train_status_other_corpus": "The tokenizer was trained on a different text than the corpus "
                                 "now chosen ({name}). Train the tokenizer again (tab 2) first.",
    "train_status_memory": "This model needs about {need} of memory to train, but only {free} is "
                           "free on {device}. Make it smaller: fewer layers (n_layer), a narrower "
                           "width (n_embd), a smaller batch_size or block_size.",
    "train_status_starting": "**Starting** on {name}…",
    "train_status_done": "Done.",
    "train_status_stopped": "Stopped.",
    "train_status_problem": "Problem:",
    "train_status_ended": "The run ended.",
    "train_status_last_eval": "Last validation loss {val_loss} at step {step} ({val_bpc} bits "
                              "per character).",
    "train_status_ready": "The model is ready: try the Generate and Attention tabs, or download "
                          "it below.",
    "train_status_no_bundle_file": "No file: upload a .zip bundle saved by this app.",
    "train_status_bundle_while_running": "A training run is going: stop it before loading a "
                                         "bundle.",
    "train_status_loaded": "**Loaded** a model with {params} parameters and a {kind} tokenizer "
                           "({vocab} tokens). Generate with it, or tick 'Continue training' and "
                           "raise max_steps to train it further.",
    "train_status_loaded_trained": "**Loaded** a model with {params} parameters and a {kind} "
                                   "tokenizer ({vocab} tokens), trained {step} steps. Generate "
                                   "with it, or tick 'Continue training' and raise max_steps to "
                                   "train it further.",
    # --- 4 · generate -----------------------------------------------------------------------------
    "gen_status_max_tokens": "Maximum new tokens must be between 1 and 5,000.",
    "gen_status_span": "The shortest span must be from {low} to {high} characters.",
    "gen_status_chart_title": "The 10 likeliest next tokens",
    # --- 5 · attention ----------------------------------------------------------------------------
    "attn_status_head_title": "Layer {layer}, head {head}",
    "attn_status_grid_title": "All {n_head} heads of layer {layer}",
    "attn_status_summary": "{tokens} tokens · {layers} layers × {heads} heads. Each row is a "
                           "token; its colours show how much it looks at each earlier token (a "
                           "row sums to 1). Change the layer or head to compare.",
    # --- 6 · compare runs -------------------------------------------------------------------------
    "compare_status_setting": "setting",
    "compare_status_val_loss": "final validation loss",
    "compare_status_val_bpc": "final bits per character",
    "compare_status_steps": "steps",
    "compare_status_seconds": "seconds",
    "compare_status_params": "parameters",
    "compare_status_no_base": "Pick the run to start from: train a run first (tab 3).",
    "compare_status_no_value": "Type or pick the new value of {setting}.",
    "compare_status_data_gone": "The text and tokenizer of {base} are no longer kept; pick a "
                                "newer run.",
    "compare_status_started": "Training {name}: the same seed and data as {base}, only {setting} "
                              "changed. Watch it on the training tab.",
    "compare_status_stream_note": "Note: these runs use nanoGPT's single random stream "
                                  "(rng_stream=nanogpt), so a change to the model also changes "
                                  "which batches it sees. For a comparison of {setting} alone, "
                                  "set rng_stream to separate in both runs.",
    # --- 7 · export and share ---------------------------------------------------------------------
    "export_status_no_bundle": "The model has no saved bundle yet: let a training run finish (or "
                               "stop it) first, then push.",
    "export_status_unknown_choice": "Unknown corpus choice {choice}.",
}

# Markdown: a "**" that closes right after Chinese punctuation needs a space (or punctuation)
# after it, or it stays literal; hence "**注意：** {note}".
ZH_CN: dict[str, str] = {
    # --- titles of the page's error messages ----------------------------------------------------
    "title_cannot": "暂时无法这样做",
    "title_info": "提示",
    "title_warning": "注意",
    "title_unexpected": "意外错误",
    "title_no_model": "还没有模型",
    "title_already_training": "正在训练",
    # --- no model yet (session.require_model): what the visitor wanted ---------------------------
    "page_no_model": "还没有模型可以{action}：请先在“模型与训练”标签页训练一个（或在那里上传模型包）。",
    "page_action_generate": "用来生成文本",
    "page_action_look_inside": "查看内部",
    "page_action_continue": "继续训练",
    "page_action_export": "导出",
    "page_action_push": "推送到 Hub",
    # --- 1 · corpus -------------------------------------------------------------------------------
    "corpus_status_summary": "**语料：{name}** · {characters} 个字符 · {lines} 行 · {words} 个词 · "
                             "{distinct} 种不同字符。",
    "corpus_status_next": "下一步：在它上面训练一个分词器（第 2 个标签页）。",
    "corpus_status_no_file": "还没有文件：请把一个或多个 .txt 或 .md 文件拖到上面的框里。",
    "corpus_status_unknown_source": "未知的来源 {source}：请从 {choices} 中选择一个。",
    # --- 2 · tokenizer ----------------------------------------------------------------------------
    "tok_status_trained_char": "**已在 {name} 上训练好字符级分词器：** 词表中有 {vocab} 个词元 · "
                               "平均每个词元 {chars_per_token} 个字符。",
    "tok_status_trained_bpe": "**已在 {name} 上训练好 BPE 分词器：** 词表中有 {vocab} 个词元 · "
                              "平均每个词元 {chars_per_token} 个字符。",
    "tok_status_vocab_smaller": "这段文本只能支持 {actual} 个 BPE 词元，少于要求的 {requested} 个"
                                "（再也没有哪一对词元出现两次以上）。将使用这个较小的词表；"
                                "更长的文本能支持更多词元。",
    "tok_status_note": "**注意：** {note}",
    "tok_status_next": "下一步：设置并训练一个模型（第 3 个标签页）。",
    "tok_status_merges_title": "**最先学到的合并**（␣ 表示空格）：",
    "tok_status_merges_zero": "0 / {total}：{n} 个词元（字节）",
    "tok_status_merge_caption": "{merge} · {n} 个词元",
    # --- 3 · model and training -------------------------------------------------------------------
    "train_status_unknown_preset": "未知的预设 {name}：请从 {choices} 中选择一个。",
    "train_status_empty": "{name} 是空的：请输入一个值。",
    "train_status_count": "应有 {expected} 项设置，收到的是 {got} 项。",
    "train_status_check": "**请检查设置：** {error}",
    "train_status_summary": "**{params} 个参数** · 训练约需 **{memory}** 内存 · 每步 {tokens} 个词元 · "
                            "共 {steps} 步。",
    "train_status_summary_default_vocab": "**{params} 个参数**（训练分词器之前按词表大小 {vocab} "
                                          "计算） · 训练约需 **{memory}** 内存 · 每步 {tokens} 个"
                                          "词元 · 共 {steps} 步。",
    "train_status_bytes": "{n} 字节",
    "train_status_device": "**设备：** {device}",
    "train_status_device_zerogpu": "**设备：** ZeroGPU：每一段训练都会临时接上一块 GPU。",
    "train_status_device_unknown": "**设备：** 未知（PyTorch 无法描述它）。",
    "train_status_progress": "**训练中：** 第 {step} / {max_steps} 步 · 每秒 {tokens_per_s} 个词元 · "
                             "已用 {elapsed} · 约剩 {left} · 训练损失 {loss}",
    "train_status_progress_val": "验证损失 {val_loss}（第 {step} 步）",
    "train_status_sample_head": "── 第 {step} 步 · 验证损失 {val_loss} ──",
    "train_status_already_pending": "已经有一个训练在进行（或在排队等待）。请先点击“停止”，或等它结束。",
    "train_status_already_running": "这个会话中已经有一个训练在进行；请先点击“停止”。",
    "train_status_nothing_running": "现在没有正在进行的训练。",
    "train_status_stopping": "将在当前这一步结束后停止……",
    "train_status_already_trained": "这个模型已经训练了 {done} 步。要继续训练，请把 max_steps "
                                    "设为大于 {done} 的值。",
    "train_status_auto_char": "还没有训练分词器，所以这次运行按字符读取文本（{vocab} 个不同的字符）。"
                              "“分词器”标签页（第 2 个标签页）可以改为训练一个 BPE 分词器。",
    "train_status_other_corpus": "分词器是在另一段文本上训练的，而不是现在选择的语料（{name}）。"
                                 "请先重新训练分词器（第 2 个标签页）。",
    "train_status_memory": "训练这个模型大约需要 {need} 内存，但 {device} 上只有 {free} 可用。"
                           "请把模型调小：减少层数（n_layer）、减小宽度（n_embd），或减小 "
                           "batch_size 或 block_size。",
    "train_status_starting": "**正在开始训练**，语料：{name}……",
    "train_status_done": "完成。",
    "train_status_stopped": "已停止。",
    "train_status_problem": "出现问题：",
    "train_status_ended": "运行已结束。",
    "train_status_last_eval": "最后一次验证损失为 {val_loss}（第 {step} 步，每字符 {val_bpc} 比特）。",
    "train_status_ready": "模型已就绪：试试“生成”和“注意力”标签页，或在下方下载它。",
    "train_status_no_bundle_file": "没有文件：请上传本应用保存的 .zip 模型包。",
    "train_status_bundle_while_running": "正在训练：请先停止训练，再加载模型包。",
    "train_status_loaded": "**已加载** 一个有 {params} 个参数的模型，使用 {kind} 分词器（{vocab} "
                           "个词元）。可以用它生成文本，或勾选“继续训练当前模型”并提高 max_steps "
                           "来继续训练。",
    "train_status_loaded_trained": "**已加载** 一个有 {params} 个参数的模型，使用 {kind} 分词器"
                                   "（{vocab} 个词元），已训练 {step} 步。可以用它生成文本，或勾选"
                                   "“继续训练当前模型”并提高 max_steps 来继续训练。",
    # --- 4 · generate -----------------------------------------------------------------------------
    "gen_status_max_tokens": "最多生成的词元数必须在 1 到 5,000 之间。",
    "gen_status_span": "最短片段必须在 {low} 到 {high} 个字符之间。",
    "gen_status_chart_title": "最可能的 10 个下一个词元",
    # --- 5 · attention ----------------------------------------------------------------------------
    "attn_status_head_title": "第 {layer} 层，第 {head} 个头",
    "attn_status_grid_title": "第 {layer} 层的全部 {n_head} 个头",
    "attn_status_summary": "{tokens} 个词元 · {layers} 层 × {heads} 个头。每一行是一个词元；颜色表示"
                           "它对每个更早的词元关注多少（每行之和为 1）。换一个层或头来比较。",
    # --- 6 · compare runs -------------------------------------------------------------------------
    "compare_status_setting": "设置",
    "compare_status_val_loss": "最终验证损失",
    "compare_status_val_bpc": "最终每字符比特数",
    "compare_status_steps": "步数",
    "compare_status_seconds": "秒数",
    "compare_status_params": "参数量",
    "compare_status_no_base": "请选择作为起点的运行：先训练一次（第 3 个标签页）。",
    "compare_status_no_value": "请输入或选择 {setting} 的新值。",
    "compare_status_data_gone": "{base} 的文本和分词器已不再保留；请选择一个更新的运行。",
    "compare_status_started": "正在训练 {name}：种子和数据与 {base} 相同，只改了 {setting}。"
                              "请在训练标签页查看。",
    "compare_status_stream_note": "注意：这些运行使用 nanoGPT 的单一随机数流（rng_stream=nanogpt），"
                                  "所以改动模型也会改变它看到的批次。若只想比较 {setting} 的影响，"
                                  "请在两次运行中都把 rng_stream 设为 separate。",
    # --- 7 · export and share ---------------------------------------------------------------------
    "export_status_no_bundle": "模型还没有保存的模型包：请先让训练运行结束（或停止它），然后再推送。",
    "export_status_unknown_choice": "未知的语料选项 {choice}。",
}

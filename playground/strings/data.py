"""What the data side says: corpus, tokenizers, bundles, shared links, export, runs
(see playground.strings)."""

EN: dict[str, str] = {
    # --- corpus (playground.corpus) -------------------------------------------------------------
    "corpus_err_pasted_text": "pasted text",
    "corpus_err_bytes": "{n} bytes",
    "corpus_err_preview_length": "The preview length must be a whole number ≥ 0, got {value}.",
    "corpus_err_val_fraction": "The validation fraction must be a number between 0 and 1 (for "
                               "example 0.1 for 10%), got {value}.",
    "corpus_err_too_short": "'{name}' has only {n} characters: too short to keep at least "
                            "{min_chars} characters each for training and validation with a "
                            "validation fraction of {fraction}. Use a longer text.",
    "corpus_err_source": "Unknown source {source} for Tiny Shakespeare: use 'bundled' or 'hub'.",
    "corpus_err_bundled_missing": "The bundled copy of Tiny Shakespeare is missing from the "
                                  "package ({file}): reinstall the package.",
    "corpus_err_hub_offline": "The Hugging Face Hub is switched off here (HF_HUB_OFFLINE is "
                              "set), so Tiny Shakespeare cannot be downloaded. The bundled copy "
                              "is available: choose 'bundled'.",
    "corpus_err_hub_unreachable": "The Hugging Face Hub is unreachable (no network connection "
                                  "to {host}). The bundled copy of Tiny Shakespeare is "
                                  "available: choose 'bundled'.",
    "corpus_err_hub_failed": "Could not load {dataset} from the Hugging Face Hub ({reason}). "
                             "The bundled copy of Tiny Shakespeare is available: choose "
                             "'bundled'.",
    "corpus_err_no_files": "No file was given: upload one or more .txt or .md files.",
    "corpus_err_files_too_big": "Together the files {files} are {size}, over the {limit} limit. "
                                "Upload fewer or smaller files.",
    "corpus_err_not_text": "The {name} must be a string of text, got {type}.",
    "corpus_err_surrogate": "The {name} contains an invalid character at position {position} "
                            "(a lone surrogate): paste it again from the original source.",
    "corpus_err_text_too_big": "The {name} is {size}, over the {limit} limit. Use a shorter text.",
    "corpus_err_text_nul": "The {name} contains NUL characters, so it is not plain text.",
    "corpus_err_text_empty": "The {name} is empty (or only whitespace): give some text to train on.",
    "corpus_err_size_limit": "The size limit must be a positive number of bytes, got {value}.",
    "corpus_err_extension": "'{file}' is not a .txt or .md file: upload plain text saved as .txt "
                            "or .md.",
    "corpus_err_unopenable": "'{file}' could not be opened: upload it again.",
    "corpus_err_file_too_big": "'{file}' is {size}, over the {limit} limit. Upload a smaller file.",
    "corpus_err_file_grew": "'{file}' is over the {limit} limit.",
    "corpus_err_utf16": "'{file}' is saved as UTF-16: save it as UTF-8 text and upload it again.",
    "corpus_err_binary": "'{file}' contains NUL bytes, so it looks like a binary file, not text. "
                         "Upload a plain-text .txt or .md file.",
    "corpus_err_not_utf8": "'{file}' is not valid UTF-8 text (byte {byte} at position "
                           "{position}). Save it as UTF-8 and upload it again.",
    "corpus_err_file_empty": "'{file}' is empty (or only whitespace): upload a file with text.",
    # --- tokenizers (playground.tokenizer) ------------------------------------------------------
    "tok_err_ids_shape": "Token ids must be a flat list of whole numbers, got {dtype} values of "
                         "shape {shape}.",
    "tok_err_id_range": "Token id {id} is not in this tokenizer's vocabulary of {vocab} (ids 0 "
                        "to {last}).",
    "tok_err_chars_per_token": "Characters per token needs a non-empty text.",
    "tok_err_unknown_one": "The text has 1 character this tokenizer has never seen: {shown}. "
                           "Train the tokenizer again on a text that contains it.",
    "tok_err_unknown_many": "The text has {n} characters this tokenizer has never seen: "
                            "{shown}. Train the tokenizer again on a text that contains them.",
    "tok_err_unknown_many_more": "The text has {n} characters this tokenizer has never seen: "
                                 "{shown} and {more} more. Train the tokenizer again on a text "
                                 "that contains them.",
    "tok_err_char_list": "A character tokenizer needs a non-empty list of single characters.",
    "tok_err_char_duplicates": "A character tokenizer's characters must all be different.",
    "tok_err_empty_text": "Cannot train a tokenizer on an empty text.",
    "tok_err_vocab_range": "The BPE vocabulary size must be a whole number from {low} (the 256 "
                           "bytes) to {high}, got {value}.",
    "tok_err_not_byte_level": "This is not a byte-level BPE tokenizer made by this app; train a "
                              "new one.",
    "tok_err_char_vocab_size": "A character tokenizer's vocabulary is the text's own characters, "
                               "so its size cannot be chosen: leave vocab_size empty, or choose "
                               "BPE.",
    "tok_err_kind": "Unknown tokenizer kind {kind}: choose one of {kinds}.",
    "tok_err_json": "The tokenizer data is not valid JSON ({reason}).",
    "tok_err_bpe_damaged": "The BPE tokenizer data is damaged ({reason}).",
    "tok_err_kind_missing": "The tokenizer data does not say which kind it is (got kind={kind}); "
                            "expected one of {kinds}.",
    "tok_err_read": "Could not read the tokenizer file '{file}' ({reason}).",
    # --- the BPE merge viewer (playground.insight.merges) -----------------------------------------------
    "merges_err_count": "The number of merges must be a whole number from 0 up, got {value}.",
    "merges_err_too_long": "The sample is {n} characters long; the merge viewer shows at most "
                           "{max_chars}. Use a shorter sentence.",
    # --- the memorisation check (playground.insight.memorization) ---------------------------------------
    "memo_err_min_chars": "The shortest span the check can look for is {n} characters.",
    # --- bundles (playground.checkpoint) --------------------------------------------------------
    "bundle_never_unpickled": "Checkpoints here are never unpickled, because unpickling a file "
                              "can run any code hidden in it. Load a .zip bundle saved by "
                              "Transformer Playground instead.",
    "bundle_what_model": "model settings",
    "bundle_what_train": "training settings",
    "bundle_part_model": "the model in '{name}'",
    "bundle_part_state": "the trainer state in '{name}'",
    "bundle_err_suffix": "A bundle is a .zip file; name it like '{stem}.zip', not '{name}'.",
    "bundle_err_vocab_save": "The tokenizer has {tokens} tokens but the model was built for "
                             "{model}; they do not belong together, so no bundle was written.",
    "bundle_err_state_ndarray": "{where} is a numpy array of {dtype}, which a bundle cannot store.",
    "bundle_err_state_type": "{where} is a {type}; trainer_state may hold only tensors, numpy "
                             "arrays, numbers, strings, None, lists, tuples and dicts (bundles "
                             "never pickle).",
    "bundle_err_foreign": "'{name}' is a zip file, but not a Transformer Playground bundle.",
    "bundle_err_foreign_folder": "'{name}' is a zip file, but not a Transformer Playground "
                                 "bundle. Its files sit in a folder ({folder}/); zip the files "
                                 "themselves.",
    "bundle_err_foreign_holds": "'{name}' is a zip file, but not a Transformer Playground "
                                "bundle. It holds: {members}.",
    "bundle_err_version": "'{name}' has an unknown bundle format version ({version}); it is "
                          "damaged.",
    "bundle_err_newer": "'{name}' was saved by a newer Transformer Playground (bundle format "
                        "{version}; this one reads format {supported}). Update the playground "
                        "to load it.",
    "bundle_err_incomplete": "'{name}' is incomplete: it lacks {members}. Save the bundle again.",
    "bundle_err_tokenizer": "The tokenizer in '{name}' cannot be rebuilt: {reason}",
    "bundle_err_vocab": "In '{name}' the tokenizer has {tokens} tokens but the model was built "
                        "for {model}: the parts come from different runs.",
    "bundle_err_history": "The training history in '{name}' is damaged (expected a list of "
                          "records).",
    "bundle_err_record_kind": "Record {number} of the training history in '{name}' is of the "
                              "unknown kind {kind} (a record is one of: {kinds}). The bundle may "
                              "come from a newer Transformer Playground: update the playground "
                              "to load it.",
    "bundle_err_record_unknown": "Record {number} of the training history in '{name}' (kind "
                                 "'{kind}') has fields this version does not know: {fields}. The "
                                 "bundle may come from a newer Transformer Playground: update the "
                                 "playground to load it.",
    "bundle_err_record_missing": "Record {number} of the training history in '{name}' (kind "
                                 "'{kind}') lacks {fields}: the history is damaged. Save the "
                                 "bundle again.",
    "bundle_err_record_value": "Record {number} of the training history in '{name}' has {field} = "
                               "{value}, which should be {expected}: the history is damaged. Save "
                               "the bundle again.",
    "bundle_expect_int": "a whole number",
    "bundle_expect_float": "a number",
    "bundle_expect_text": "a text",
    "bundle_expect_text_or_null": "a text or null",
    "bundle_err_state_damaged": "The trainer state in '{name}' is damaged ({reason}).",
    "bundle_err_no_file": "There is no file at '{path}'.",
    "bundle_err_folder": "'{path}' is a folder; choose the bundle's .zip file.",
    "bundle_err_pickle_suffix": "'{name}' looks like a PyTorch pickle file ({suffix}). {never}",
    "bundle_err_pickle": "'{name}' is a Python pickle. {never}",
    "bundle_err_zip_truncated": "'{name}' is damaged or incomplete: it is named .zip, but its "
                                "zip directory cannot be found (an interrupted download or copy "
                                "does that).",
    "bundle_err_not_zip": "'{name}' is not a Transformer Playground bundle (a .zip file).",
    "bundle_err_zip_damaged": "'{name}' is damaged: a part of the zip cannot be read ({reason}). "
                              "Save or download it again.",
    "bundle_err_suspicious": "'{name}' contains a suspicious entry ({member}); it was not loaded.",
    "bundle_err_duplicate": "'{name}' lists the same entry twice; it was not loaded.",
    "bundle_err_too_many": "'{name}' holds {n} entries, far more than a bundle; it was not "
                           "loaded.",
    "bundle_err_too_big": "'{name}' would unpack to {size} GiB, more than the {limit} GiB a "
                          "bundle may hold; it was not loaded.",
    "bundle_err_zip_bomb": "'{name}' has an entry that unpacks {ratio} times larger than it is "
                           "stored ({member}); that is a zip bomb, not a bundle, so it was not "
                           "loaded.",
    "bundle_err_pickled_inside": "'{name}' holds pickled data (a torch.save file?). {never}",
    "bundle_err_json": "{member} in '{name}' is damaged (not valid JSON: {reason}).",
    "bundle_err_config_damaged": "The {what} in this bundle are damaged (expected a JSON object).",
    "bundle_err_config": "The {what} in this bundle cannot be used: {reason}",
    "bundle_err_tensors": "The tensors of {what} are damaged ({reason}).",
    "bundle_err_weights": "The weights in '{name}' do not fit its model settings: {problems}.",
    "bundle_err_tied": "The weights in '{name}' hold different values for {first} and {second}, "
                       "but its settings tie them (tie_weights=True).",
    "bundle_problem_missing": "{tensor} is missing",
    "bundle_problem_extra": "{tensor} is not part of this model",
    "bundle_problem_shape": "{tensor} is {shape} but these settings make it {expected}",
    "bundle_problem_dtype": "{tensor} holds {dtype} values, not floating-point weights",
    "bundle_problems_join": "{first}; {then}",
    "bundle_problems_more": "{first}; and {n} more",
    # --- shared links (playground.export.links) --------------------------------------------------------
    "share_err_bool": "The link's setting {setting} must be 1 or 0 (on or off), got {value}.",
    "share_err_whole": "The link's setting {setting} must be a whole number, got {value}.",
    "share_err_number": "The link's setting {setting} must be a number, got {value}.",
    "share_err_corpus": "The link's corpus must be one of {choices}, got {value}.",
    "share_err_tokenizer": "The link's tokenizer must be char or bpe, got {value}.",
    "share_err_vocab": "The link's BPE vocab_size must be from 256 to 16,384, got {value}.",
    "share_err_prompt": "The link's prompt is longer than {max_chars} characters.",
    "share_err_range": "The link's setting {setting} must be between {low} and {high}, got {value}.",
    "share_err_settings": "The link's settings cannot be used: {reason}",
    "share_err_unknown": "These are not settings a link can carry: {keys}.",
    "share_err_not_text": "The setting {setting} must be text, got {value}.",
    "share_err_not_number": "The setting {setting} must be a number, got {value}.",
    "share_err_twice": "The link gives the setting {setting} twice; keep one.",
    "share_err_version": "This link's format ({version}) is unknown here: it was made by another "
                         "version of the app. Open it there, or update this one.",
    "share_err_too_many": "The link holds more than {n} settings; it is not a link to these "
                          "settings.",
    "share_err_too_long": "The link is longer than {n} characters; it is not a link to these "
                          "settings.",
    "share_err_type": "A link is text, got {type}.",
    "share_err_unreadable": "The link cannot be read ({reason}).",
    # --- export and the Hub (playground.export.publish) -------------------------------------------------
    "export_err_repo_id": "The repository must look like user/name: letters, digits, '-', '_' "
                          "and '.', each part starting and ending with a letter or digit, at "
                          "most 96 characters; got {value}.",
    "export_err_no_token": "Pushing to the Hub needs a Hugging Face token with write access "
                           "(huggingface.co/settings/tokens).",
    "export_err_token_spaces": "The token has spaces in it; copy it again from "
                               "huggingface.co/settings/tokens.",
    "export_err_hub_token": "The Hub did not accept the token: check that it is valid and has "
                            "write access.",
    "export_err_hub_forbidden": "The token may not write to {repo}: use a token with write "
                                "access, and a user or organisation name it belongs to.",
    "export_err_hub_offline": "The Hugging Face Hub cannot be reached from here.",
    "export_err_hub_failed": "Pushing to the Hub failed: {reason}",
    # --- comparing runs (playground.insight.runs) -------------------------------------------------------
    "runs_none_yet": "none yet",
    "runs_err_unknown": "No run is called {names}; the runs of this session are {runs}.",
    "runs_err_vocab_size": "vocab_size follows the tokenizer: train another tokenizer to change "
                           "it.",
    "runs_err_no_setting": "There is no setting called {setting}; pick one of {choices} (or any "
                           "model or training setting).",
    "runs_err_same_value": "This run already has {setting}={value}; pick another value to see "
                           "its effect.",
    "runs_err_bool": "{setting} is on or off (true or false), got {value}.",
    "runs_err_number": "{setting} must be a number, got {value}.",
    "runs_err_whole": "{setting} must be a whole number, got {value}.",
    # --- figures (playground.plots) -------------------------------------------------------------
    "plot_train": "train",
    "plot_validation": "validation",
    "plot_loss_axis": "loss (cross-entropy, nats)",
    "plot_axis_step": "step",
    "plot_axis_tokens": "tokens seen",
    "plot_axis_elapsed": "seconds",
    "plot_loss_empty": "The loss curve appears here once training starts.",
    "plot_val_bpc_axis": "validation bits per character",
    "plot_val_loss_axis": "validation loss (nats per token)",
    "plot_compare_empty": "Select two or more runs to compare their validation curves.",
    "plot_weight": "weight",
    "plot_weight_value": "weight {value}",
    "plot_looks_at": "“{query}” looks at “{target}”",
    "plot_key_axis": "key (token attended to)",
    "plot_query_axis": "query (token attending)",
    "plot_head": "head {n}",
    "plot_query_key": "query {query} → key {target}",
    "plot_probability": "probability",
    "plot_token": "token {n}",
    "plot_more_tokens": "… and {n} more tokens",
}

ZH_CN: dict[str, str] = {
    # --- corpus (playground.corpus) -------------------------------------------------------------
    "corpus_err_pasted_text": "粘贴的文本",
    "corpus_err_bytes": "{n} 字节",
    "corpus_err_preview_length": "预览长度必须是 ≥ 0 的整数，收到的是 {value}。",
    "corpus_err_val_fraction": "验证集比例必须是 0 到 1 之间的数（例如 0.1 表示 10%），收到的是 {value}。",
    "corpus_err_too_short": "“{name}”只有 {n} 个字符：太短了，在验证集比例为 {fraction} 时，"
                            "无法让训练和验证各保留至少 {min_chars} 个字符。请使用更长的文本。",
    "corpus_err_source": "Tiny Shakespeare 没有来源 {source}：请使用 'bundled' 或 'hub'。",
    "corpus_err_bundled_missing": "软件包中缺少自带的 Tiny Shakespeare 副本（{file}）：请重新安装软件包。",
    "corpus_err_hub_offline": "这里关闭了 Hugging Face Hub（设置了 HF_HUB_OFFLINE），"
                              "所以无法下载 Tiny Shakespeare。可以使用自带的副本：请选择 'bundled'。",
    "corpus_err_hub_unreachable": "无法连接 Hugging Face Hub（没有到 {host} 的网络连接）。"
                                  "可以使用自带的 Tiny Shakespeare 副本：请选择 'bundled'。",
    "corpus_err_hub_failed": "无法从 Hugging Face Hub 加载 {dataset}（{reason}）。"
                             "可以使用自带的 Tiny Shakespeare 副本：请选择 'bundled'。",
    "corpus_err_no_files": "没有提供文件：请上传一个或多个 .txt 或 .md 文件。",
    "corpus_err_files_too_big": "文件 {files} 合计 {size}，超过了 {limit} 的上限。请上传更少或更小的文件。",
    "corpus_err_not_text": "{name}必须是一段文本（字符串），收到的是 {type}。",
    "corpus_err_surrogate": "{name}在位置 {position} 有一个无效字符（单独的代理项）："
                            "请从原始来源重新粘贴。",
    "corpus_err_text_too_big": "{name}有 {size}，超过了 {limit} 的上限。请使用更短的文本。",
    "corpus_err_text_nul": "{name}包含 NUL 字符，所以不是纯文本。",
    "corpus_err_text_empty": "{name}是空的（或只有空白）：请提供一些用来训练的文本。",
    "corpus_err_size_limit": "大小上限必须是正的字节数，收到的是 {value}。",
    "corpus_err_extension": "“{file}”不是 .txt 或 .md 文件：请上传保存为 .txt 或 .md 的纯文本。",
    "corpus_err_unopenable": "无法打开“{file}”：请重新上传。",
    "corpus_err_file_too_big": "“{file}”有 {size}，超过了 {limit} 的上限。请上传更小的文件。",
    "corpus_err_file_grew": "“{file}”超过了 {limit} 的上限。",
    "corpus_err_utf16": "“{file}”是以 UTF-16 保存的：请把它另存为 UTF-8 文本后重新上传。",
    "corpus_err_binary": "“{file}”包含 NUL 字节，看起来是二进制文件，而不是文本。"
                         "请上传纯文本的 .txt 或 .md 文件。",
    "corpus_err_not_utf8": "“{file}”不是有效的 UTF-8 文本（位置 {position} 处的字节 {byte}）。"
                           "请把它另存为 UTF-8 后重新上传。",
    "corpus_err_file_empty": "“{file}”是空的（或只有空白）：请上传包含文本的文件。",
    # --- tokenizers (playground.tokenizer) ------------------------------------------------------
    "tok_err_ids_shape": "词元 id 必须是一维的整数列表，收到的是形状为 {shape} 的 {dtype} 值。",
    "tok_err_id_range": "词元 id {id} 不在这个分词器的词表中（词表大小 {vocab}，id 从 0 到 {last}）。",
    "tok_err_chars_per_token": "计算每个词元的字符数需要一段非空文本。",
    "tok_err_unknown_one": "文本中有 1 个这个分词器从未见过的字符：{shown}。"
                           "请在包含它的文本上重新训练分词器。",
    "tok_err_unknown_many": "文本中有 {n} 个这个分词器从未见过的字符：{shown}。"
                            "请在包含它们的文本上重新训练分词器。",
    "tok_err_unknown_many_more": "文本中有 {n} 个这个分词器从未见过的字符：{shown}，另外还有 {more} 个。"
                                 "请在包含它们的文本上重新训练分词器。",
    "tok_err_char_list": "字符分词器需要一个非空的单字符列表。",
    "tok_err_char_duplicates": "字符分词器的字符必须各不相同。",
    "tok_err_empty_text": "不能在空文本上训练分词器。",
    "tok_err_vocab_range": "BPE 词表大小必须是从 {low}（256 个字节）到 {high} 的整数，收到的是 {value}。",
    "tok_err_not_byte_level": "这不是本应用生成的字节级 BPE 分词器；请训练一个新的。",
    "tok_err_char_vocab_size": "字符分词器的词表就是文本自身的字符，所以不能指定大小："
                               "请把 vocab_size 留空，或选择 BPE。",
    "tok_err_kind": "未知的分词器类型 {kind}：请从 {kinds} 中选择一个。",
    "tok_err_json": "分词器数据不是有效的 JSON（{reason}）。",
    "tok_err_bpe_damaged": "BPE 分词器数据已损坏（{reason}）。",
    "tok_err_kind_missing": "分词器数据没有说明它是哪种类型（收到 kind={kind}）；应为 {kinds} 之一。",
    "tok_err_read": "无法读取分词器文件“{file}”（{reason}）。",
    # --- the BPE merge viewer (playground.insight.merges) -----------------------------------------------
    "merges_err_count": "合并次数必须是从 0 起的整数，收到的是 {value}。",
    "merges_err_too_long": "示例有 {n} 个字符；合并查看器最多显示 {max_chars} 个。请使用更短的句子。",
    # --- the memorisation check (playground.insight.memorization) ---------------------------------------
    "memo_err_min_chars": "检查能查找的最短片段是 {n} 个字符。",
    # --- bundles (playground.checkpoint) --------------------------------------------------------
    "bundle_never_unpickled": "这里从不对检查点做反序列化（unpickle），因为反序列化一个文件可能运行其中隐藏的任何代码。"
                              "请改为加载由 Transformer Playground 保存的 .zip 模型包。",
    "bundle_what_model": "模型设置",
    "bundle_what_train": "训练设置",
    "bundle_part_model": "“{name}”中的模型",
    "bundle_part_state": "“{name}”中的训练器状态",
    "bundle_err_suffix": "模型包是 .zip 文件；请命名为“{stem}.zip”这样的名字，而不是“{name}”。",
    "bundle_err_vocab_save": "分词器有 {tokens} 个词元，但模型是为 {model} 个词元构建的；"
                             "它们不属于同一次运行，所以没有写入模型包。",
    "bundle_err_state_ndarray": "{where} 是 {dtype} 类型的 numpy 数组，模型包无法保存它。",
    "bundle_err_state_type": "{where} 是 {type}；trainer_state 只能包含张量、numpy 数组、数字、字符串、"
                             "None、列表、元组和字典（模型包从不使用 pickle）。",
    "bundle_err_foreign": "“{name}”是一个 zip 文件，但不是 Transformer Playground 模型包。",
    "bundle_err_foreign_folder": "“{name}”是一个 zip 文件，但不是 Transformer Playground 模型包。"
                                 "它的文件在一个文件夹里（{folder}/）；请直接压缩这些文件本身。",
    "bundle_err_foreign_holds": "“{name}”是一个 zip 文件，但不是 Transformer Playground 模型包。"
                                "它包含：{members}。",
    "bundle_err_version": "“{name}”的模型包格式版本未知（{version}）；文件已损坏。",
    "bundle_err_newer": "“{name}”是由更新版本的 Transformer Playground 保存的（模型包格式 {version}；"
                        "这个版本只能读取格式 {supported}）。请更新本程序后再加载。",
    "bundle_err_incomplete": "“{name}”不完整：缺少 {members}。请重新保存模型包。",
    "bundle_err_tokenizer": "无法重建“{name}”中的分词器：{reason}",
    "bundle_err_vocab": "在“{name}”中，分词器有 {tokens} 个词元，但模型是为 {model} 个词元构建的："
                        "这些部分来自不同的运行。",
    "bundle_err_history": "“{name}”中的训练历史已损坏（应为记录的列表）。",
    "bundle_err_record_kind": "“{name}”的训练历史中第 {number} 条记录的类型 {kind} 无法识别（记录只能是："
                              "{kinds}）。这个模型包可能来自更新版本的 Transformer Playground：请更新本程序后再加载。",
    "bundle_err_record_unknown": "“{name}”的训练历史中第 {number} 条记录（类型“{kind}”）含有这个版本不认识的"
                                 "字段：{fields}。这个模型包可能来自更新版本的 Transformer Playground："
                                 "请更新本程序后再加载。",
    "bundle_err_record_missing": "“{name}”的训练历史中第 {number} 条记录（类型“{kind}”）缺少 {fields}："
                                 "训练历史已损坏。请重新保存模型包。",
    "bundle_err_record_value": "“{name}”的训练历史中第 {number} 条记录的 {field} = {value}，应为{expected}："
                               "训练历史已损坏。请重新保存模型包。",
    "bundle_expect_int": "整数",
    "bundle_expect_float": "数字",
    "bundle_expect_text": "文本",
    "bundle_expect_text_or_null": "文本或 null",
    "bundle_err_state_damaged": "“{name}”中的训练器状态已损坏（{reason}）。",
    "bundle_err_no_file": "“{path}”处没有文件。",
    "bundle_err_folder": "“{path}”是一个文件夹；请选择模型包的 .zip 文件。",
    "bundle_err_pickle_suffix": "“{name}”看起来是 PyTorch 的 pickle 文件（{suffix}）。{never}",
    "bundle_err_pickle": "“{name}”是 Python pickle 文件。{never}",
    "bundle_err_zip_truncated": "“{name}”已损坏或不完整：它的名字是 .zip，但找不到它的 zip 目录"
                                "（下载或复制中断会造成这种情况）。",
    "bundle_err_not_zip": "“{name}”不是 Transformer Playground 模型包（.zip 文件）。",
    "bundle_err_zip_damaged": "“{name}”已损坏：zip 的一部分无法读取（{reason}）。请重新保存或下载。",
    "bundle_err_suspicious": "“{name}”包含一个可疑的条目（{member}）；没有加载。",
    "bundle_err_duplicate": "“{name}”把同一个条目列出了两次；没有加载。",
    "bundle_err_too_many": "“{name}”包含 {n} 个条目，远多于一个模型包；没有加载。",
    "bundle_err_too_big": "“{name}”解压后将有 {size} GiB，超过了模型包最多允许的 {limit} GiB；没有加载。",
    "bundle_err_zip_bomb": "“{name}”中有一个条目解压后比存储时大 {ratio} 倍（{member}）；"
                           "这是 zip 炸弹，不是模型包，所以没有加载。",
    "bundle_err_pickled_inside": "“{name}”包含 pickle 数据（torch.save 保存的文件？）。{never}",
    "bundle_err_json": "“{name}”中的 {member} 已损坏（不是有效的 JSON：{reason}）。",
    "bundle_err_config_damaged": "这个模型包中的{what}已损坏（应为 JSON 对象）。",
    "bundle_err_config": "这个模型包中的{what}无法使用：{reason}",
    "bundle_err_tensors": "{what}的张量已损坏（{reason}）。",
    "bundle_err_weights": "“{name}”中的权重与它的模型设置不符：{problems}。",
    "bundle_err_tied": "“{name}”中的权重 {first} 和 {second} 的值不同，"
                       "但它的设置把它们绑定在一起（tie_weights=True）。",
    "bundle_problem_missing": "缺少 {tensor}",
    "bundle_problem_extra": "{tensor} 不属于这个模型",
    "bundle_problem_shape": "{tensor} 的形状是 {shape}，但这些设置要求 {expected}",
    "bundle_problem_dtype": "{tensor} 存的是 {dtype} 值，而不是浮点权重",
    "bundle_problems_join": "{first}；{then}",
    "bundle_problems_more": "{first}；另外还有 {n} 处",
    # --- shared links (playground.export.links) --------------------------------------------------------
    "share_err_bool": "链接中的设置 {setting} 必须是 1 或 0（开或关），收到的是 {value}。",
    "share_err_whole": "链接中的设置 {setting} 必须是整数，收到的是 {value}。",
    "share_err_number": "链接中的设置 {setting} 必须是数字，收到的是 {value}。",
    "share_err_corpus": "链接中的语料必须是 {choices} 之一，收到的是 {value}。",
    "share_err_tokenizer": "链接中的分词器必须是 char 或 bpe，收到的是 {value}。",
    "share_err_vocab": "链接中的 BPE vocab_size 必须在 256 到 16,384 之间，收到的是 {value}。",
    "share_err_prompt": "链接中的提示超过了 {max_chars} 个字符。",
    "share_err_range": "链接中的设置 {setting} 必须在 {low} 和 {high} 之间，收到的是 {value}。",
    "share_err_settings": "链接中的设置无法使用：{reason}",
    "share_err_unknown": "这些不是链接可以携带的设置：{keys}。",
    "share_err_not_text": "设置 {setting} 必须是文本，收到的是 {value}。",
    "share_err_not_number": "设置 {setting} 必须是数字，收到的是 {value}。",
    "share_err_twice": "链接把设置 {setting} 给了两次；请只保留一个。",
    "share_err_version": "这里不认识这个链接的格式（{version}）：它是由另一个版本的应用生成的。"
                         "请在那个版本中打开，或者更新这个版本。",
    "share_err_too_many": "链接中有超过 {n} 个设置；它不是指向这些设置的链接。",
    "share_err_too_long": "链接超过了 {n} 个字符；它不是指向这些设置的链接。",
    "share_err_type": "链接应该是文本，收到的是 {type}。",
    "share_err_unreadable": "无法读取这个链接（{reason}）。",
    # --- export and the Hub (playground.export.publish) -------------------------------------------------
    "export_err_repo_id": "仓库名必须形如 用户名/名称：由字母、数字、'-'、'_' 和 '.' 组成，"
                          "每一部分以字母或数字开头和结尾，最多 96 个字符；收到的是 {value}。",
    "export_err_no_token": "推送到 Hub 需要一个有写权限的 Hugging Face 令牌"
                           "（huggingface.co/settings/tokens）。",
    "export_err_token_spaces": "令牌中有空格；请从 huggingface.co/settings/tokens 重新复制。",
    "export_err_hub_token": "Hub 不接受这个令牌：请检查它是否有效、是否有写权限。",
    "export_err_hub_forbidden": "这个令牌不能写入 {repo}：请使用有写权限的令牌，"
                                "以及令牌所属的用户名或组织名。",
    "export_err_hub_offline": "从这里无法连接 Hugging Face Hub。",
    "export_err_hub_failed": "推送到 Hub 失败：{reason}",
    # --- comparing runs (playground.insight.runs) -------------------------------------------------------
    "runs_none_yet": "还没有",
    "runs_err_unknown": "没有名为 {names} 的运行；这个会话的运行有：{runs}。",
    "runs_err_vocab_size": "vocab_size 由分词器决定：要改变它，请训练另一个分词器。",
    "runs_err_no_setting": "没有名为 {setting} 的设置；请从 {choices} 中选择一个（或任何模型或训练设置）。",
    "runs_err_same_value": "这次运行已经是 {setting}={value}；请选另一个值来观察它的效果。",
    "runs_err_bool": "{setting} 只能是开或关（true 或 false），收到的是 {value}。",
    "runs_err_number": "{setting} 必须是数字，收到的是 {value}。",
    "runs_err_whole": "{setting} 必须是整数，收到的是 {value}。",
    # --- figures (playground.plots) -------------------------------------------------------------
    "plot_train": "训练",
    "plot_validation": "验证",
    "plot_loss_axis": "损失（交叉熵，奈特）",
    "plot_axis_step": "步数",
    "plot_axis_tokens": "已见词元数",
    "plot_axis_elapsed": "秒",
    "plot_loss_empty": "训练开始后，损失曲线会显示在这里。",
    "plot_val_bpc_axis": "验证集每字符比特数",
    "plot_val_loss_axis": "验证损失（每词元奈特）",
    "plot_compare_empty": "选择两次或更多运行，比较它们的验证曲线。",
    "plot_weight": "权重",
    "plot_weight_value": "权重 {value}",
    "plot_looks_at": "“{query}”关注“{target}”",
    "plot_key_axis": "键（被关注的词元）",
    "plot_query_axis": "查询（发出关注的词元）",
    "plot_head": "头 {n}",
    "plot_query_key": "查询 {query} → 键 {target}",
    "plot_probability": "概率",
    "plot_token": "词元 {n}",
    "plot_more_tokens": "……还有 {n} 个词元",
}

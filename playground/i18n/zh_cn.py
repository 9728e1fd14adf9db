"""What the server says, in Simplified Chinese, keyed by its English text (gettext-style).

Each message is written in English where it is raised (``msg("...", name=...)``, see
``playground.i18n``); this map gives its Chinese, with the same ``{name}`` placeholders: the
core's messages first, then, under their own heading, the page's (status lines of the tabs'
handlers and of the server). The tests find every ``msg``/``t`` literal in the source and
check that it is here, and that no English is keyed twice, so a change to an English
sentence needs the same change to its key here. The page's labels, translated in the
browser by id, are in ``labels.py``.
"""

ZH_CN: dict[str, str] = {
    # --- settings (playground.config) ---------------------------------------------------------
    "{name} must be a whole number, got {value}.": "{name} 必须是整数，收到的是 {value}。",
    "{name} must be a number, got {value}.": "{name} 必须是一个数，收到的是 {value}。",
    "{name} must be between {low} and {high}, got {value}.":
        "{name} 必须在 {low} 到 {high} 之间，收到的是 {value}。",
    "{name} must be one of {choices}; got {value}.":
        "{name} 必须是 {choices} 之一；收到的是 {value}。",
    "The width n_embd={n_embd} must divide evenly among the {n_head} attention heads (each head "
    "gets n_embd / n_head numbers). Try n_embd={suggestion} or a number of heads that divides "
    "{n_embd}.":
        "宽度 n_embd={n_embd} 必须能平均分给 {n_head} 个注意力头（每个头分到 n_embd / n_head "
        "个数）。试试 n_embd={suggestion}，或者换一个能整除 {n_embd} 的头数。",
    "RoPE rotates the numbers of each head in pairs, so the head size (n_embd / n_head = "
    "{head_size}) must be even. Change n_embd or n_head, or pick another kind of position "
    "encoding.":
        "RoPE 把每个头里的数两两配对旋转，所以头的大小（n_embd / n_head = {head_size}）"
        "必须是偶数。请修改 n_embd 或 n_head，或者换一种位置编码。",
    "min_lr ({min_lr}) is where the learning rate ends, so it cannot be above the peak lr ({lr}).":
        "min_lr（{min_lr}）是学习率最后降到的值，所以不能高于峰值 lr（{lr}）。",
    "batch_size={batch_size} must split evenly into grad_accum={grad_accum} micro-batches.":
        "batch_size={batch_size} 必须能平均分成 grad_accum={grad_accum} 个小批次。",
    "Unknown {config} settings: {names}.": "未知的 {config} 设置：{names}。",
    # --- optimisers (playground.optim) --------------------------------------------------------
    "This run was trained with optimizer={saved}, so it can only continue with it: set "
    "optimizer={saved}, or start a new run to try optimizer={asked}.":
        "这次运行是用 optimizer={saved} 训练的，只能用它继续：请设 optimizer={saved}，"
        "或者开始一次新的运行来试 optimizer={asked}。",
    # --- training (playground.train) ----------------------------------------------------------
    "training": "训练",
    "validation": "验证",
    "val_fraction must be between 0 and 1, got {value}.":
        "val_fraction 必须在 0 到 1 之间，收到的是 {value}。",
    "The {part} part of the text is {n} tokens long, but each training window needs block_size + "
    "1 = {needed} tokens. Use a longer text, a smaller block_size, or a different val_fraction.":
        "文本的{part}部分只有 {n} 个词元，但每个训练窗口需要 block_size + 1 = {needed} 个词元。"
        "请换一段更长的文本、调小 block_size，或者修改 val_fraction。",
    "chars_per_token must be positive, got {value}.":
        "chars_per_token 必须是正数，收到的是 {value}。",
    "The {part} tokens run from {low} to {high}, but the model knows only {vocab_size} tokens (0 "
    "to {last}). Build the model with the tokenizer's vocab_size.":
        "{part}数据的词元编号从 {low} 到 {high}，但模型只认识 {vocab_size} 个词元（0 到 {last}）。"
        "请用分词器的 vocab_size 来构建模型。",
    "Stopped at step {step} as asked.": "已按要求在第 {step} 步停止。",
    # --- ZeroGPU chunks (playground.runtime.zerogpu) ---
    "**About {cost} of your daily ZeroGPU time** (estimated). Visitors who are not signed in "
    "to Hugging Face get {anonymous} min a day, signed-in ones {signed_in} min: sign in for "
    "more. When it runs out, training goes on on the CPU, slower.":
        "**大约占用你每天 ZeroGPU 时间中的 {cost}**（估计值）。未登录 Hugging Face 的访客每天有 "
        "{anonymous} 分钟，登录后有 {signed_in} 分钟：登录可获得更多。用完之后，训练会在 CPU 上"
        "继续，速度较慢。",
    "Your GPU time for today is used up; training goes on on the CPU.":
        "你今天的 GPU 时间已用完，训练改在 CPU 上继续。",
    "Your GPU time for today is used up; training goes on on the CPU, about {minutes} min left.":
        "你今天的 GPU 时间已用完，训练改在 CPU 上继续，大约还需 {minutes} 分钟。",
    "Your GPU time for today ran out at step {step}; the rest of the run trained on the CPU.":
        "你今天的 GPU 时间在第 {step} 步用完，之后的训练在 CPU 上完成。",
    "The GPU call failed ({reason}). The run stopped at step {step} with the weights of that "
    "step: download them below, or continue training.":
        "GPU 调用失败（{reason}）。训练停在第 {step} 步，保留了该步的权重：可以在下方下载，"
        "或者继续训练。",
    "compile (torch.compile) does not work on ZeroGPU, where each stretch of training runs in a "
    "new GPU process: untick compile and press Start again.":
        "compile（torch.compile）在 ZeroGPU 上无法使用，因为每段训练都在一个新的 GPU 进程里运行："
        "请取消勾选 compile，再按一次开始。",
    "compile (torch.compile) is off on this shared server: it costs every visitor half a minute "
    "of the machine before the first step. Untick compile (under Advanced) and press Start again.":
        "这台共享服务器关闭了 compile（torch.compile）：第一步之前它要占用机器约半分钟，"
        "每位访客都得等。请在“高级设置”里取消勾选 compile，再按一次开始。",
    "This run would take about {time} here, and this shared server takes runs of up to about "
    "{limit}. Lower the training steps (max_steps, under Advanced) or pick a smaller preset.":
        "这次训练在这里大约要 {time}，而这台共享服务器只接受最长约 {limit} 的训练。"
        "请在“高级设置”里减少训练步数（max_steps），或选一个更小的预设。",
    "Stopped at the time limit of this shared server ({limit} per run), at step {step}, so "
    "everyone gets a turn. The model is kept: download it below, or tick Continue training and "
    "press Start to train it further.":
        "已到这台共享服务器每次训练的时间上限（{limit}），停在第 {step} 步，好让每个人都能轮到。"
        "模型已保留：可以在下方下载，或勾选“继续训练”再按开始，接着训练。",
    "This model needs about {need} of memory to train; {free} is free on {device}, but other "
    "runs under way here may still need {held} of it. Try again when they have finished, or make "
    "it smaller: fewer layers (n_layer), a narrower width (n_embd), a smaller batch_size or "
    "block_size.":
        "训练这个模型大约需要 {need} 内存；{device} 上还有 {free} 空闲，但这里正在进行的其他训练"
        "可能还要用掉其中的 {held}。请等它们结束后再试，或者把模型改小：减少层数（n_layer）、"
        "减小宽度（n_embd）、减小 batch_size 或 block_size。",
    "Finished all {max_steps} steps.": "已完成全部 {max_steps} 步。",
    "Paused at step {step} of {max_steps}; run() continues.":
        "在第 {step} 步暂停（共 {max_steps} 步）；再次调用 run() 会继续。",
    "The loss became {loss} at step {step}, so training stopped there. The weights are those from "
    "before that step. A learning rate that is too high is the usual cause: try lr={suggested_lr} "
    "(this step used {lr}).":
        "第 {step} 步的损失变成了 {loss}，训练就此停止。权重保持该步之前的值。"
        "最常见的原因是学习率太高：试试 lr={suggested_lr}（这一步用的是 {lr}）。",
    "The loss became {loss} at step {step}, so training stopped there. The weights are those from "
    "before that step. A learning rate that is too high is the usual cause: try lr={suggested_lr} "
    "(this step used {lr}), or turn on grad_clip=1.0.":
        "第 {step} 步的损失变成了 {loss}，训练就此停止。权重保持该步之前的值。"
        "最常见的原因是学习率太高：试试 lr={suggested_lr}（这一步用的是 {lr}），或者打开梯度裁剪 "
        "grad_clip=1.0。",
    "Ran out of memory at step {step} on {device}. Try a smaller batch_size (now {batch_size}), "
    "more grad_accum micro-batches, a shorter block_size (now {block_size}) or a smaller model. "
    "The weights from step {kept_step} are kept.":
        "第 {step} 步时 {device} 内存不足。试试更小的 batch_size（现在是 {batch_size}）、更多的 "
        "grad_accum 小批次、更短的 block_size（现在是 {block_size}），或者更小的模型。第 "
        "{kept_step} 步的权重已保留。",
    "Training failed at step {step}: {error_type}: {error}. The weights from step {kept_step} are "
    "kept.":
        "训练在第 {step} 步失败：{error_type}: {error}。第 {kept_step} 步的权重已保留。",
    "Training failed at step {step}: {error_type}: {error} The weights from step {kept_step} are "
    "kept.":
        "训练在第 {step} 步失败：{error_type}: {error} 第 {kept_step} 步的权重已保留。",
    # --- devices (playground.runtime.device) ------------------------------------------------------
    "Unknown device {device}. Choose auto, cpu, cuda or mps.":
        "未知的设备 {device}。请选择 auto、cpu、cuda 或 mps。",
    "CUDA was asked for, but this machine has no usable NVIDIA GPU (or this PyTorch build has no "
    "CUDA support). Choose device auto or cpu.":
        "要求使用 CUDA，但这台机器没有可用的 NVIDIA GPU（或者这个 PyTorch 版本不支持 CUDA）。请把 "
        "device 设为 auto 或 cpu。",
    "GPU number {index} was asked for, but this machine has {count} GPU (numbered from 0). Choose "
    "cuda or auto.":
        "要求使用第 {index} 号 GPU，但这台机器只有 {count} 块 GPU（从 0 开始编号）。请选择 cuda "
        "或 auto。",
    "GPU number {index} was asked for, but this machine has {count} GPUs (numbered from 0). "
    "Choose cuda or auto.":
        "要求使用第 {index} 号 GPU，但这台机器只有 {count} 块 GPU（从 0 开始编号）。请选择 cuda "
        "或 auto。",
    "Apple's MPS was asked for, but it is not available here (it needs a Mac with Apple silicon "
    "and a PyTorch build with MPS). Choose device auto or cpu.":
        "要求使用 Apple 的 MPS，但这里不可用（需要 Apple 芯片的 Mac 和支持 MPS 的 PyTorch 版本）。"
        "请把 device 设为 auto 或 cpu。",
    "This GPU cannot compute in bfloat16. Choose dtype auto or float32.":
        "这块 GPU 不能用 bfloat16 计算。请把 dtype 设为 auto 或 float32。",
    "GPU: {name} ({memory} GiB)": "GPU：{name}（{memory} GiB）",
    "Apple GPU (MPS)": "Apple GPU（MPS）",
    "CPU ({threads} threads, bf16 fast: yes)": "CPU（{threads} 个线程，bf16 较快：是）",
    "CPU ({threads} threads, bf16 fast: no)": "CPU（{threads} 个线程，bf16 较快：否）",
    # --- the model, generation, attention -----------------------------------------------------
    "This model reads at most {block_size} tokens at once (block_size); it was given {n}. Crop "
    "the input to the last {block_size} tokens.":
        "这个模型一次最多读入 {block_size} 个词元（block_size），但收到了 {n} 个。"
        "请把输入截成最后 {block_size} 个词元。",
    "The KV cache holds {size} tokens; it cannot take {n} more after {length}. Start a new cache "
    "(generation slides its window for this).":
        "KV 缓存能放 {size} 个词元；已有 {length} 个，放不下再来的 {n} 个。"
        "请新建一个缓存（生成时会为此滑动窗口）。",
    "Type some text to look at: the attention map needs at least one token.":
        "请输入一些要查看的文本：注意力图至少需要一个词元。",
    # what a head mostly looks at (playground.insight.attention.PATTERNS)
    "previous token": "前一个词元",
    "first token": "第一个词元",
    "itself": "它自己",
    "spaces and line breaks": "空格和换行",
    "same token earlier": "前面相同的词元",
    # --- corpus (playground.corpus) -------------------------------------------------------------
    "pasted text": "粘贴的文本",
    "{n} bytes": "{n} 字节",
    "The preview length must be a whole number ≥ 0, got {value}.":
        "预览长度必须是 ≥ 0 的整数，收到的是 {value}。",
    "The validation fraction must be a number between 0 and 1 (for example 0.1 for 10%), got "
    "{value}.":
        "验证集比例必须是 0 到 1 之间的数（例如 0.1 表示 10%），收到的是 {value}。",
    "'{name}' has only {n} characters: too short to keep at least {min_chars} characters each for "
    "training and validation with a validation fraction of {fraction}. Use a longer text.":
        "“{name}”只有 {n} 个字符：太短了，在验证集比例为 {fraction} 时，"
        "无法让训练和验证各保留至少 {min_chars} 个字符。请使用更长的文本。",
    "Unknown source {source} for Tiny Shakespeare: use 'bundled' or 'hub'.":
        "Tiny Shakespeare 没有来源 {source}：请使用 'bundled' 或 'hub'。",
    "The bundled copy of Tiny Shakespeare is missing from the package ({file}): reinstall the "
    "package.":
        "软件包中缺少自带的 Tiny Shakespeare 副本（{file}）：请重新安装软件包。",
    "The Hugging Face Hub is switched off here (HF_HUB_OFFLINE is set), so Tiny Shakespeare "
    "cannot be downloaded. The bundled copy is available: choose 'bundled'.":
        "这里关闭了 Hugging Face Hub（设置了 HF_HUB_OFFLINE），所以无法下载 Tiny Shakespeare。"
        "可以使用自带的副本：请选择 'bundled'。",
    "The Hugging Face Hub is unreachable (no network connection to {host}). The bundled copy of "
    "Tiny Shakespeare is available: choose 'bundled'.":
        "无法连接 Hugging Face Hub（没有到 {host} 的网络连接）。可以使用自带的 Tiny Shakespeare "
        "副本：请选择 'bundled'。",
    "Could not load {dataset} from the Hugging Face Hub ({reason}). The bundled copy of Tiny "
    "Shakespeare is available: choose 'bundled'.":
        "无法从 Hugging Face Hub 加载 {dataset}（{reason}）。可以使用自带的 Tiny Shakespeare "
        "副本：请选择 'bundled'。",
    "No file was given: upload one or more .txt or .md files.":
        "没有提供文件：请上传一个或多个 .txt 或 .md 文件。",
    "Together the files {files} are {size}, over the {limit} limit. Upload fewer or smaller files.":
        "文件 {files} 合计 {size}，超过了 {limit} 的上限。请上传更少或更小的文件。",
    "The {name} must be a string of text, got {type}.":
        "{name}必须是一段文本（字符串），收到的是 {type}。",
    "The {name} contains an invalid character at position {position} (a lone surrogate): paste it "
    "again from the original source.":
        "{name}在位置 {position} 有一个无效字符（单独的代理项）：请从原始来源重新粘贴。",
    "The {name} is {size}, over the {limit} limit. Use a shorter text.":
        "{name}有 {size}，超过了 {limit} 的上限。请使用更短的文本。",
    "The {name} contains NUL characters, so it is not plain text.":
        "{name}包含 NUL 字符，所以不是纯文本。",
    "The {name} is empty (or only whitespace): give some text to train on.":
        "{name}是空的（或只有空白）：请提供一些用来训练的文本。",
    "The size limit must be a positive number of bytes, got {value}.":
        "大小上限必须是正的字节数，收到的是 {value}。",
    "'{file}' is not a .txt or .md file: upload plain text saved as .txt or .md.":
        "“{file}”不是 .txt 或 .md 文件：请上传保存为 .txt 或 .md 的纯文本。",
    "'{file}' could not be opened: upload it again.": "无法打开“{file}”：请重新上传。",
    "'{file}' is {size}, over the {limit} limit. Upload a smaller file.":
        "“{file}”有 {size}，超过了 {limit} 的上限。请上传更小的文件。",
    "'{file}' is over the {limit} limit.": "“{file}”超过了 {limit} 的上限。",
    "'{file}' is saved as UTF-16: save it as UTF-8 text and upload it again.":
        "“{file}”是以 UTF-16 保存的：请把它另存为 UTF-8 文本后重新上传。",
    "'{file}' contains NUL bytes, so it looks like a binary file, not text. Upload a plain-text "
    ".txt or .md file.":
        "“{file}”包含 NUL 字节，看起来是二进制文件，而不是文本。请上传纯文本的 .txt 或 .md 文件。",
    "'{file}' is not valid UTF-8 text (byte {byte} at position {position}). Save it as UTF-8 and "
    "upload it again.":
        "“{file}”不是有效的 UTF-8 文本（位置 {position} 处的字节 {byte}）。请把它另存为 UTF-8 "
        "后重新上传。",
    "'{file}' is empty (or only whitespace): upload a file with text.":
        "“{file}”是空的（或只有空白）：请上传包含文本的文件。",
    # --- tokenizers (playground.tokenizer) ------------------------------------------------------
    "Token ids must be a flat list of whole numbers, got {dtype} values of shape {shape}.":
        "词元 id 必须是一维的整数列表，收到的是形状为 {shape} 的 {dtype} 值。",
    "Token id {id} is not in this tokenizer's vocabulary of {vocab} (ids 0 to {last}).":
        "词元 id {id} 不在这个分词器的词表中（词表大小 {vocab}，id 从 0 到 {last}）。",
    "Characters per token needs a non-empty text.": "计算每个词元的字符数需要一段非空文本。",
    "The text has 1 character this tokenizer has never seen: {shown}. Train the tokenizer again "
    "on a text that contains it.":
        "文本中有 1 个这个分词器从未见过的字符：{shown}。请在包含它的文本上重新训练分词器。",
    "The text has {n} characters this tokenizer has never seen: {shown}. Train the tokenizer "
    "again on a text that contains them.":
        "文本中有 {n} 个这个分词器从未见过的字符：{shown}。请在包含它们的文本上重新训练分词器。",
    "The text has {n} characters this tokenizer has never seen: {shown} and {more} more. Train "
    "the tokenizer again on a text that contains them.":
        "文本中有 {n} 个这个分词器从未见过的字符：{shown}，另外还有 {more} 个。"
        "请在包含它们的文本上重新训练分词器。",
    "A character tokenizer needs a non-empty list of single characters.":
        "字符分词器需要一个非空的单字符列表。",
    "A character tokenizer's characters must all be different.": "字符分词器的字符必须各不相同。",
    "Cannot train a tokenizer on an empty text.": "不能在空文本上训练分词器。",
    "The BPE vocabulary size must be a whole number from {low} (the 256 bytes) to {high}, got "
    "{value}.":
        "BPE 词表大小必须是从 {low}（256 个字节）到 {high} 的整数，收到的是 {value}。",
    "This is not a byte-level BPE tokenizer made by this app; train a new one.":
        "这不是本应用生成的字节级 BPE 分词器；请训练一个新的。",
    "A character tokenizer's vocabulary is the text's own characters, so its size cannot be "
    "chosen: leave vocab_size empty, or choose BPE.":
        "字符分词器的词表就是文本自身的字符，所以不能指定大小：请把 vocab_size 留空，或选择 BPE。",
    "Unknown tokenizer kind {kind}: choose one of {kinds}.":
        "未知的分词器类型 {kind}：请从 {kinds} 中选择一个。",
    "The tokenizer data is not valid JSON ({reason}).": "分词器数据不是有效的 JSON（{reason}）。",
    "The BPE tokenizer data is damaged ({reason}).": "BPE 分词器数据已损坏（{reason}）。",
    "The tokenizer data does not say which kind it is (got kind={kind}); expected one of {kinds}.":
        "分词器数据没有说明它是哪种类型（收到 kind={kind}）；应为 {kinds} 之一。",
    "Could not read the tokenizer file '{file}' ({reason}).":
        "无法读取分词器文件“{file}”（{reason}）。",
    "Training the BPE tokenizer took longer than {seconds} seconds, so it was stopped. Train it "
    "on a shorter text or with a smaller vocabulary.":
        "训练 BPE 分词器用了超过 {seconds} 秒，所以已停止。请用更短的文本或更小的词表再训练。",
    "Training the BPE tokenizer failed ({reason}).": "训练 BPE 分词器失败（{reason}）。",
    # --- the BPE merge viewer (playground.insight.merges) -----------------------------------------
    "The number of merges must be a whole number from 0 up, got {value}.":
        "合并次数必须是从 0 起的整数，收到的是 {value}。",
    "The sample is {n} characters long; the merge viewer shows at most {max_chars}. Use a shorter "
    "sentence.":
        "示例有 {n} 个字符；合并查看器最多显示 {max_chars} 个。请使用更短的句子。",
    # --- the memorisation check (playground.insight.memorization) ---------------------------------
    "The shortest span the check can look for is {n} characters.":
        "检查能查找的最短片段是 {n} 个字符。",
    # --- bundles (playground.checkpoint) --------------------------------------------------------
    "Checkpoints here are never unpickled, because unpickling a file can run any code hidden in "
    "it. Load a .zip bundle saved by Transformer Playground instead.":
        "这里从不对检查点做反序列化（unpickle），因为反序列化一个文件可能运行其中隐藏的任何代码。"
        "请改为加载由 Transformer Playground 保存的 .zip 模型包。",
    "model settings": "模型设置",
    "training settings": "训练设置",
    "the model in '{name}'": "“{name}”中的模型",
    "the trainer state in '{name}'": "“{name}”中的训练器状态",
    "A bundle is a .zip file; name it like '{stem}.zip', not '{name}'.":
        "模型包是 .zip 文件；请命名为“{stem}.zip”这样的名字，而不是“{name}”。",
    "The tokenizer has {tokens} tokens but the model was built for {model}; they do not belong "
    "together, so no bundle was written.":
        "分词器有 {tokens} 个词元，但模型是为 {model} 个词元构建的；它们不属于同一次运行，"
        "所以没有写入模型包。",
    "{where} is a numpy array of {dtype}, which a bundle cannot store.":
        "{where} 是 {dtype} 类型的 numpy 数组，模型包无法保存它。",
    "{where} is a {type}; trainer_state may hold only tensors, numpy arrays, numbers, strings, "
    "None, lists, tuples and dicts (bundles never pickle).":
        "{where} 是 {type}；trainer_state 只能包含张量、numpy 数组、数字、字符串、None、列表、"
        "元组和字典（模型包从不使用 pickle）。",
    "'{name}' is a zip file, but not a Transformer Playground bundle.":
        "“{name}”是一个 zip 文件，但不是 Transformer Playground 模型包。",
    "'{name}' is a zip file, but not a Transformer Playground bundle. Its files sit in a folder "
    "({folder}/); zip the files themselves.":
        "“{name}”是一个 zip 文件，但不是 Transformer Playground 模型包。"
        "它的文件在一个文件夹里（{folder}/）；请直接压缩这些文件本身。",
    "'{name}' is a zip file, but not a Transformer Playground bundle. It holds: {members}.":
        "“{name}”是一个 zip 文件，但不是 Transformer Playground 模型包。它包含：{members}。",
    "'{name}' has an unknown bundle format version ({version}); it is damaged.":
        "“{name}”的模型包格式版本未知（{version}）；文件已损坏。",
    "'{name}' was saved by a newer Transformer Playground (bundle format {version}; this one "
    "reads format {supported}). Update the playground to load it.":
        "“{name}”是由更新版本的 Transformer Playground 保存的（模型包格式 {version}；"
        "这个版本只能读取格式 {supported}）。请更新本程序后再加载。",
    "'{name}' is incomplete: it lacks {members}. Save the bundle again.":
        "“{name}”不完整：缺少 {members}。请重新保存模型包。",
    "The tokenizer in '{name}' cannot be rebuilt: {reason}": "无法重建“{name}”中的分词器：{reason}",
    "In '{name}' the tokenizer has {tokens} tokens but the model was built for {model}: the parts "
    "come from different runs.":
        "在“{name}”中，分词器有 {tokens} 个词元，但模型是为 {model} 个词元构建的："
        "这些部分来自不同的运行。",
    "The training history in '{name}' is damaged (expected a list of records).":
        "“{name}”中的训练历史已损坏（应为记录的列表）。",
    "Record {number} of the training history in '{name}' is of the unknown kind {kind} (a record "
    "is one of: {kinds}). The bundle may come from a newer Transformer Playground: update the "
    "playground to load it.":
        "“{name}”的训练历史中第 {number} 条记录的类型 {kind} 无法识别（记录只能是：{kinds}）。"
        "这个模型包可能来自更新版本的 Transformer Playground：请更新本程序后再加载。",
    "Record {number} of the training history in '{name}' (kind '{kind}') has fields this version "
    "does not know: {fields}. The bundle may come from a newer Transformer Playground: update the "
    "playground to load it.":
        "“{name}”的训练历史中第 {number} 条记录（类型“{kind}”）含有这个版本不认识的字段："
        "{fields}。这个模型包可能来自更新版本的 Transformer Playground：请更新本程序后再加载。",
    "Record {number} of the training history in '{name}' (kind '{kind}') lacks {fields}: the "
    "history is damaged. Save the bundle again.":
        "“{name}”的训练历史中第 {number} 条记录（类型“{kind}”）缺少 {fields}：训练历史已损坏。"
        "请重新保存模型包。",
    "Record {number} of the training history in '{name}' has {field} = {value}, which should be "
    "{expected}: the history is damaged. Save the bundle again.":
        "“{name}”的训练历史中第 {number} 条记录的 {field} = {value}，应为{expected}："
        "训练历史已损坏。请重新保存模型包。",
    "a whole number": "整数",
    "a number": "数字",
    "a text": "文本",
    "a text or null": "文本或 null",
    "a number or null": "数字或 null",
    "The trainer state in '{name}' is damaged ({reason}).":
        "“{name}”中的训练器状态已损坏（{reason}）。",
    "There is no file at '{path}'.": "“{path}”处没有文件。",
    "'{path}' is a folder; choose the bundle's .zip file.":
        "“{path}”是一个文件夹；请选择模型包的 .zip 文件。",
    "'{name}' looks like a PyTorch pickle file ({suffix}). {never}":
        "“{name}”看起来是 PyTorch 的 pickle 文件（{suffix}）。{never}",
    "'{name}' is a Python pickle. {never}": "“{name}”是 Python pickle 文件。{never}",
    "'{name}' is damaged or incomplete: it is named .zip, but its zip directory cannot be found "
    "(an interrupted download or copy does that).":
        "“{name}”已损坏或不完整：它的名字是 .zip，但找不到它的 zip "
        "目录（下载或复制中断会造成这种情况）。",
    "'{name}' is not a Transformer Playground bundle (a .zip file).":
        "“{name}”不是 Transformer Playground 模型包（.zip 文件）。",
    "'{name}' is damaged: a part of the zip cannot be read ({reason}). Save or download it again.":
        "“{name}”已损坏：zip 的一部分无法读取（{reason}）。请重新保存或下载。",
    "'{name}' contains a suspicious entry ({member}); it was not loaded.":
        "“{name}”包含一个可疑的条目（{member}）；没有加载。",
    "'{name}' lists the same entry twice; it was not loaded.":
        "“{name}”把同一个条目列出了两次；没有加载。",
    "'{name}' holds {n} entries, far more than a bundle; it was not loaded.":
        "“{name}”包含 {n} 个条目，远多于一个模型包；没有加载。",
    "'{name}' would unpack to {size} GiB, more than the {limit} GiB a bundle may hold; it was not "
    "loaded.":
        "“{name}”解压后将有 {size} GiB，超过了模型包最多允许的 {limit} GiB；没有加载。",
    "'{name}' has an entry that unpacks {ratio} times larger than it is stored ({member}); that "
    "is a zip bomb, not a bundle, so it was not loaded.":
        "“{name}”中有一个条目解压后比存储时大 {ratio} 倍（{member}）；这是 zip 炸弹，不是模型包，"
        "所以没有加载。",
    "'{name}' holds pickled data (a torch.save file?). {never}":
        "“{name}”包含 pickle 数据（torch.save 保存的文件？）。{never}",
    "{member} in '{name}' is damaged (not valid JSON: {reason}).":
        "“{name}”中的 {member} 已损坏（不是有效的 JSON：{reason}）。",
    "The {what} in this bundle are damaged (expected a JSON object).":
        "这个模型包中的{what}已损坏（应为 JSON 对象）。",
    "The {what} in this bundle cannot be used: {reason}": "这个模型包中的{what}无法使用：{reason}",
    "The tensors of {what} are damaged ({reason}).": "{what}的张量已损坏（{reason}）。",
    "The weights in '{name}' do not fit its model settings: {problems}.":
        "“{name}”中的权重与它的模型设置不符：{problems}。",
    "The weights in '{name}' hold different values for {first} and {second}, but its settings tie "
    "them (tie_weights=True).":
        "“{name}”中的权重 {first} 和 {second} 的值不同，"
        "但它的设置把它们绑定在一起（tie_weights=True）。",
    "{tensor} is missing": "缺少 {tensor}",
    "{tensor} is not part of this model": "{tensor} 不属于这个模型",
    "{tensor} is {shape} but these settings make it {expected}":
        "{tensor} 的形状是 {shape}，但这些设置要求 {expected}",
    "{tensor} holds {dtype} values, not floating-point weights":
        "{tensor} 存的是 {dtype} 值，而不是浮点权重",
    "{first}; {then}": "{first}；{then}",
    "{first}; and {n} more": "{first}；另外还有 {n} 处",
    # bundles: bounded before anything is read or built, and saved without losing the old one
    "'{name}' holds a model that needs about {need} of memory to load and generate with (its "
    "weights, the position tables and a KV cache over its {block_size}-token context), but only "
    "{free} can be given to it here. It was not loaded.":
        "“{name}”里的模型加载并用来生成需要约 {need} 内存（权重、位置表，以及覆盖 {block_size} "
        "个词元上下文的 KV 缓存），但这里最多只能给它 {free}。没有加载它。",
    "'{name}' is password-protected (encrypted). Bundles are never encrypted: upload the .zip "
    "file as this app saved it.":
        "“{name}”设了密码（已加密）。模型包从不加密：请上传本应用保存的原始 .zip 文件。",
    "In '{name}', {member} would unpack to {size}, more than the {limit} it can take in a bundle "
    "of these settings (the file is damaged or was made to exhaust memory), so it was not loaded.":
        "“{name}”中的 {member} 解压后有 {size}，超过了这种设置的模型包所能容纳的 {limit}"
        "（文件已损坏，或是为耗尽内存而制作的），所以没有加载。",
    "{member} in '{name}' is not what this app writes: it holds {n} objects and lists in {size} "
    "of JSON, so it was not read.":
        "“{name}”中的 {member} 不是本应用写出的内容：{size} 的 JSON 里有 {n} 个对象和列表，"
        "所以没有读取。",
    "{member} in '{name}' is nested more than {depth} levels deep, far deeper than anything this "
    "app writes, so it was not read.":
        "“{name}”中的 {member} 嵌套超过 {depth} 层，远比本应用写出的任何内容都深，所以没有读取。",
    "{tensor} holds values that are not finite numbers (NaN or infinity)":
        "{tensor} 含有不是有限数的值（NaN 或无穷大）",
    "{tensor} holds {dtype} values, which a bundle cannot store.":
        "{tensor} 存的是 {dtype} 值，模型包无法保存这种类型。",
    "The bundle '{name}' could not be written ({reason}). Nothing was replaced: an earlier file "
    "of that name is kept as it was.":
        "无法写入模型包“{name}”（{reason}）。没有替换任何文件：同名的旧文件原样保留。",
    "There is not enough free disk space to save the bundle '{name}': it needs about {need} and "
    "{free} is free. Nothing was written, and an earlier file of that name is kept as it was.":
        "磁盘空间不足，无法保存模型包“{name}”：需要约 {need}，只剩 {free}。什么也没有写入，"
        "同名的旧文件原样保留。",
    "The trainer state in '{name}' cannot be used to continue training: {field} {problem}. The "
    "bundle was not loaded; save it again from a run.":
        "“{name}”中的训练状态无法用来继续训练：{field} {problem}。没有加载这个模型包；"
        "请从一次运行重新保存它。",
    "is not a set of named values": "不是一组带名字的值",
    "is missing": "缺失",
    "is not a field of a trainer state": "不是训练状态里的字段",
    "must be a whole number from 0 to {high}": "必须是 0 到 {high} 之间的整数",
    "must be a number of seconds, 0 or more": "必须是秒数，且不小于 0",
    "is not the state of a random number generator": "不是随机数生成器的状态",
    "must be a list of positions in the text": "必须是文本中的一串位置",
    "must hold finite numbers": "必须只含有限数",
    "is not an optimizer's state": "不是优化器的状态",
    "do not match this model's parameters": "与这个模型的参数对不上",
    "must be a finite number": "必须是有限数",
    "is not the state of one of this model's parameters": "不是这个模型某个参数的状态",
    "must be a number": "必须是一个数",
    "must be a tensor of its parameter's shape {shape}": "必须是与其参数形状 {shape} 相同的张量",
    "holds values that are not finite": "含有不是有限数的值",
    # --- shared links (playground.export.links) ---------------------------------------------------
    "The link's setting {setting} must be 1 or 0 (on or off), got {value}.":
        "链接中的设置 {setting} 必须是 1 或 0（开或关），收到的是 {value}。",
    "The link's setting {setting} must be a whole number, got {value}.":
        "链接中的设置 {setting} 必须是整数，收到的是 {value}。",
    "The link's setting {setting} must be a number, got {value}.":
        "链接中的设置 {setting} 必须是数字，收到的是 {value}。",
    "The link's corpus must be one of {choices}, got {value}.":
        "链接中的语料必须是 {choices} 之一，收到的是 {value}。",
    "The link's tokenizer must be char or bpe, got {value}.":
        "链接中的分词器必须是 char 或 bpe，收到的是 {value}。",
    "The link's BPE vocab_size must be from 256 to 16,384, got {value}.":
        "链接中的 BPE vocab_size 必须在 256 到 16,384 之间，收到的是 {value}。",
    "The link's prompt is longer than {max_chars} characters.":
        "链接中的提示超过了 {max_chars} 个字符。",
    "The link's setting {setting} must be between {low} and {high}, got {value}.":
        "链接中的设置 {setting} 必须在 {low} 和 {high} 之间，收到的是 {value}。",
    "The link's settings cannot be used: {reason}": "链接中的设置无法使用：{reason}",
    "These are not settings a link can carry: {keys}.": "这些不是链接可以携带的设置：{keys}。",
    # --- lesson links (export.lesson) ---
    "The lesson's title is longer than {n} characters: shorten it.":
        "课程标题超过了 {n} 个字符：请缩短。",
    "The lesson's text is longer than {n} characters: shorten it.":
        "课程说明超过了 {n} 个字符：请缩短。",
    "A lesson shows at least one tab: tick one.": "课程至少要显示一个标签页：请勾选一个。",
    "These are not tabs or settings a lesson can show: {names}.":
        "这些不是课程可以显示的标签页或设置：{names}。",
    "The lesson's task must be one of {choices}, got {value}.":
        "课程的任务必须是 {choices} 之一，收到的是 {value}。",
    "The lesson names no tab this version has, so it would show nothing.":
        "课程列出的标签页这个版本都没有，所以什么也显示不了。",
    "The setting {setting} must be text, got {value}.":
        "设置 {setting} 必须是文本，收到的是 {value}。",
    "The setting {setting} must be a number, got {value}.":
        "设置 {setting} 必须是数字，收到的是 {value}。",
    "The link gives the setting {setting} twice; keep one.":
        "链接把设置 {setting} 给了两次；请只保留一个。",
    "This link's format ({version}) is unknown here: it was made by another version of the app. "
    "Open it there, or update this one.":
        "这里不认识这个链接的格式（{version}）：它是由另一个版本的应用生成的。请在那个版本中打开，"
        "或者更新这个版本。",
    "The link holds more than {n} settings; it is not a link to these settings.":
        "链接中有超过 {n} 个设置；它不是指向这些设置的链接。",
    "The link is longer than {n} characters; it is not a link to these settings.":
        "链接超过了 {n} 个字符；它不是指向这些设置的链接。",
    "A link is text, got {type}.": "链接应该是文本，收到的是 {type}。",
    "The link cannot be read ({reason}).": "无法读取这个链接（{reason}）。",
    # --- export and the Hub (playground.export.publish) -------------------------------------------
    "The repository must look like user/name: letters, digits, '-', '_' and '.', each part "
    "starting and ending with a letter or digit, at most 96 characters; got {value}.":
        "仓库名必须形如 用户名/名称：由字母、数字、'-'、'_' 和 '.' 组成，"
        "每一部分以字母或数字开头和结尾，最多 96 个字符；收到的是 {value}。",
    "Pushing to the Hub needs a Hugging Face token with write access "
    "(huggingface.co/settings/tokens).":
        "推送到 Hub 需要一个有写权限的 Hugging Face 令牌（huggingface.co/settings/tokens）。",
    "The token has spaces in it; copy it again from huggingface.co/settings/tokens.":
        "令牌中有空格；请从 huggingface.co/settings/tokens 重新复制。",
    "The Hub did not accept the token: check that it is valid and has write access.":
        "Hub 不接受这个令牌：请检查它是否有效、是否有写权限。",
    "The token may not write to {repo}: use a token with write access, and a user or organisation "
    "name it belongs to.":
        "这个令牌不能写入 {repo}：请使用有写权限的令牌，以及令牌所属的用户名或组织名。",
    "The Hugging Face Hub cannot be reached from here.": "从这里无法连接 Hugging Face Hub。",
    "Pushing to the Hub failed: {reason}": "推送到 Hub 失败：{reason}",
    # --- comparing runs (playground.insight.runs) -------------------------------------------------
    "none yet": "还没有",
    "No run is called {names}; the runs of this session are {runs}.":
        "没有名为 {names} 的运行；这个会话的运行有：{runs}。",
    "vocab_size follows the tokenizer: train another tokenizer to change it.":
        "vocab_size 由分词器决定：要改变它，请训练另一个分词器。",
    "There is no setting called {setting}; pick one of {choices} (or any model or training "
    "setting).":
        "没有名为 {setting} 的设置；请从 {choices} 中选择一个（或任何模型或训练设置）。",
    "This run already has {setting}={value}; pick another value to see its effect.":
        "这次运行已经是 {setting}={value}；请选另一个值来观察它的效果。",
    "{setting} is on or off (true or false), got {value}.":
        "{setting} 只能是开或关（true 或 false），收到的是 {value}。",
    "{setting} must be a number, got {value}.": "{setting} 必须是数字，收到的是 {value}。",
    "{setting} must be a whole number, got {value}.": "{setting} 必须是整数，收到的是 {value}。",
    # --- inside the model: diagram, forward pass, surprise, embedding map, training health ------
    # (playground.insight.diagram, lens, surprise, embedding_map, health)
    "token embedding": "词元嵌入",
    "token embedding × √{n_embd} = {scale}": "词元嵌入 × √{n_embd} = {scale}",
    "Each token id picks one row of a table of {vocab} rows: a vector of {n_embd} numbers that "
    "training tunes, so that tokens used alike end up with similar rows.":
        "每个词元编号从一张 {vocab} 行的表中取出一行：一个由 {n_embd} 个数组成的向量。训练会调整这些数，"
        "让用法相近的词元得到相近的行。",
    "{note} The rows are multiplied by √{n_embd} = {scale}, as in the 2017 paper: the table starts "
    "with small numbers, and the scale keeps them from being drowned by the position signal added "
    "next.":
        "{note}这些行乘以 √{n_embd} = {scale}，和 2017 年的论文一样：表中的数一开始很小，"
        "放大后才不会被接下来加上的位置信号淹没。",
    "learned positions": "可学习的位置",
    "sine and cosine positions (fixed)": "正弦余弦位置（固定）",
    "positions: RoPE, inside attention": "位置：RoPE，在注意力内部",
    "no positions": "没有位置",
    "One trained vector per position, 0 to {last}, added to the token's vector, so the model can "
    "tell the first token from the fifth. It cannot read past position {last}.":
        "每个位置（0 到 {last}）一个训练出来的向量，加到词元的向量上，这样模型才分得清第一个词元和"
        "第五个。它读不了位置 {last} 之后的内容。",
    "A fixed pattern of sines and cosines of many wavelengths, added to the token's vector: each "
    "position gets its own fingerprint, with nothing to train.":
        "一组固定的、波长各不相同的正弦和余弦，加到词元的向量上：每个位置都有自己的“指纹”，"
        "不需要训练。",
    "Nothing is added here. RoPE (rotary positions) turns each head's queries and keys by an angle "
    "that grows with the position, inside attention, so an attention score depends on how far "
    "apart two tokens are.":
        "这里什么也不加。RoPE（旋转位置编码）在注意力内部把每个头的查询和键旋转一个随位置增大的角度，"
        "于是注意力分数取决于两个词元相隔多远。",
    "No position signal at all: only the causal mask tells the tokens apart by their order, and a "
    "model can still learn a little of it.":
        "完全没有位置信号：只有因果掩码按顺序区分词元，模型仍能从中学到一点顺序。",
    "LayerNorm subtracts the mean of the token's numbers and divides by their spread.":
        "LayerNorm 减去词元各数的平均值，再除以它们的离散程度。",
    "RMSNorm (Llama) divides the token's numbers by their root mean square, without centring them.":
        "RMSNorm（Llama）把词元的各数除以它们的均方根，不做中心化。",
    "final {norm}": "最后的 {norm}",
    "{how} Pre-norm blocks leave the residual stream as it is, so one last norm brings it to a "
    "steady size before the output head reads it.":
        "{how}pre-norm 的块不改变残差流本身，所以在输出头读取之前，再用一次归一化把它调到稳定的大小。",
    "{how} Pre-norm (GPT-2 and later): the norm sits inside the branch, before the part that reads "
    "the vector, and the residual path around it stays untouched. Deep stacks train stably this "
    "way.":
        "{how}pre-norm（GPT-2 及之后）：归一化放在分支里、读取向量的部分之前，绕过它的残差通路保持不变。"
        "这样很深的堆叠也能稳定训练。",
    "{how} Post-norm (the 2017 paper): the norm follows each residual addition, so every block's "
    "output is normalised. Deep post-norm models need a warmup and a small learning rate to train.":
        "{how}post-norm（2017 年的论文）：归一化放在每次残差相加之后，所以每个块的输出都被归一化。"
        "很深的 post-norm 模型需要预热和较小的学习率才能训练。",
    "Each token asks a question (its query); every token up to it offers a key and a value. The "
    "token takes a mix of the values, weighted by how well its query matches each key. {n_head} "
    "heads do this side by side, each on {head_size} numbers, and a last layer mixes their answers. "
    "The scores are divided by √{head_size} so that they do not grow with the head size and "
    "saturate the softmax. A causal mask hides the later tokens, so the model cannot peek at the "
    "token it must predict.":
        "每个词元提出一个问题（查询）；它之前（含自身）的每个词元给出一个键和一个值。词元按查询与各个键的"
        "匹配程度，对这些值加权混合。{n_head} 个头并排做这件事，每个头用 {head_size} 个数，最后一层再把"
        "它们的答案混合起来。分数除以 √{head_size}，这样它们不会随头的大小变大而让 softmax 饱和。"
        "因果掩码遮住后面的词元，模型就无法偷看它要预测的那个词元。",
    "{note} QK-norm (Qwen3): each head's queries and keys are RMS-normed first, so the scores "
    "follow learned gains.":
        "{note}QK-norm（Qwen3）：先对每个头的查询和键做 RMS 归一化，分数于是由学到的增益决定。",
    "{note} RoPE rotates the queries and keys by their positions before they meet.":
        "{note}RoPE 在查询和键相遇之前，按它们的位置旋转它们。",
    "{note} Token shift: in what it reads, the first half of each token's numbers are the "
    "previous token's.":
        "{note}Token shift：它读到的向量里，每个词元的前一半数字换成了前一个词元的。",
    "attention: {n_head} heads × {head_size}": "注意力：{n_head} 个头 × {head_size}",
    "GELU, a smooth ReLU that lets a little of the negative side through":
        "GELU，一种平滑的 ReLU，负数一侧也放过一点",
    "ReLU, which keeps positive numbers and zeroes negative ones": "ReLU，保留正数、把负数变成 0",
    "ReLU squared (Primer, the modded-nanogpt speedrun): ReLU, then squared":
        "ReLU 平方（Primer、modded-nanogpt 速通）：先 ReLU，再平方",
    "SwiGLU (PaLM, Llama): one layer opens a gate, silu(gate) x up, on another":
        "SwiGLU（PaLM、Llama）：一层打开一道门，作用在另一层上：silu(gate) x up",
    "Works on each token on its own: widens its vector to {hidden} numbers ({ratio} × n_embd), "
    "applies {activation}, and projects it back to {n_embd}. Much of what the model knows is "
    "stored in these weights.":
        "逐个处理每个词元：把它的向量加宽到 {hidden} 个数（{ratio} × n_embd），经过 {activation}，"
        "再投影回 {n_embd} 个数。模型知道的很多东西就存在这些权重里。",
    "MLP: {activation}, {widths}": "MLP：{activation}，{widths}",
    "+ add the input back (residual)": "+ 加回输入（残差）",
    "Adds what the part computed to what went into it. Each part only has to learn a correction, "
    "and the gradients flow straight down the stack.":
        "把这一部分算出的结果加到它的输入上。每部分只需学一个修正量，梯度也能直通整个堆叠。",
    "output head (tied to the token embedding)": "输出头（与词元嵌入共享）",
    "output head": "输出头",
    "Turns the last vector into one score (a logit) for each of the {vocab} tokens. Tied: it "
    "reuses the token embedding table, so a token's input and output vectors are the same and "
    "{saved} parameters are saved.":
        "把最后的向量变成 {vocab} 个词元各自的一个分数（logit）。共享权重：它重用词元嵌入表，"
        "所以一个词元的输入向量和输出向量相同，省下 {saved} 个参数。",
    "Turns the last vector into one score (a logit) for each of the {vocab} tokens, with a table of "
    "its own ({vocab} × {n_embd}), apart from the token embedding.":
        "把最后的向量变成 {vocab} 个词元各自的一个分数（logit），用的是它自己的一张表"
        "（{vocab} × {n_embd}），与词元嵌入分开。",
    "softmax: next-token probabilities": "softmax：下一个词元的概率",
    "Turns the scores into probabilities for the next token, which add up to 1. Sampling draws "
    "one; temperature, top-k and top-p reshape them first (try them in the forward pass below).":
        "把分数变成下一个词元的概率，总和为 1。采样从中抽出一个；温度、top-k 和 top-p 会先改变它们的"
        "形状（在下面的前向计算里试试）。",
    "pre-norm": "前置归一化 pre-norm",
    "post-norm": "后置归一化 post-norm",
    "Block × {n_layer} ({placement}), {params} parameters each":
        "块 × {n_layer}（{placement}），每块 {params} 个参数",
    "{n} parameters": "{n} 个参数",
    "{params} parameters in all (a tied matrix counted once).":
        "共 {params} 个参数（共享的矩阵只算一次）。",
    "Type a prompt: the forward pass needs at least one token.":
        "请输入一段提示：前向计算至少需要一个词元。",
    "+ position {position}": "+ 位置 {position}",
    "= into block 1": "= 进入第 1 块",
    "number {dimension}: {value}": "第 {dimension} 个数：{value}",
    "“{token}”: {n} numbers": "“{token}”：{n} 个数",
    "layer {layer} · head {head}": "第 {layer} 层 · 第 {head} 个头",
    "looks at “{target}”: weight {value}": "看向“{target}”：权重 {value}",
    "Where “{token}” looks, in each layer and head": "“{token}”在每一层、每个头里看向哪里",
    "embedding": "嵌入",
    "after layer {n}": "第 {n} 层之后",
    "after layer {n} (output)": "第 {n} 层之后（输出）",
    "top guesses": "最可能的猜测",
    "“{token}”<br>comes next": "接下来是<br>“{token}”",
    "next token<br>unknown": "下一个词元<br>未知",
    "“{token}”: {value}": "“{token}”：{value}",
    "rank": "名次",
    "the model (temperature 1)": "模型本身（温度 1）",
    "what sampling draws from": "采样实际抽取的分布",
    "{kept} of {vocab} tokens can be drawn": "{vocab} 个词元中有 {kept} 个可能被抽到",
    "The text needs at least two tokens: the model predicts each token from the ones before it.":
        "文本至少需要两个词元：模型根据前面的词元预测每一个词元。",
    "the first token: nothing predicts it": "第一个词元：没有东西预测它",
    "“{token}”: loss {loss} nats (p = {p}) · the model's top guess: “{guess}” ({guess_p})":
        "“{token}”：损失 {loss} 奈特（p = {p}）· 模型最可能的猜测：“{guess}”（{guess_p}）",
    "loss in nats, from sure (0) to a blind guess (ln {vocab} = {top}) and above:":
        "损失（奈特），从有把握（0）到盲猜（ln {vocab} = {top}）及以上：",
    "vowels": "元音",
    "other lowercase": "其他小写字母",
    "capitals": "大写字母",
    "digits": "数字",
    "punctuation": "标点",
    "spaces and newlines": "空格和换行",
    "“{token}” (id {id})": "“{token}”（编号 {id}）",
    "axis {n}: {share} of the variance": "第 {n} 轴：占方差的 {share}",
    "All {vocab} tokens are shown.": "显示了全部 {vocab} 个词元。",
    "The {n} most frequent of the {vocab} tokens are shown.":
        "显示了 {vocab} 个词元中最常见的 {n} 个。",
    "The first {n} of the {vocab} tokens are shown.": "显示了 {vocab} 个词元中的前 {n} 个。",
    "The two axes hold {share} of how the rows differ; tokens close together are treated alike.":
        "这两个轴包含了各行差异的 {share}；靠得近的词元被模型以相近的方式对待。",
    "The two axes hold {share} of how the rows differ; tokens close together are treated alike. "
    "This table is the output head too (tied weights).":
        "这两个轴包含了各行差异的 {share}；靠得近的词元被模型以相近的方式对待。这张表同时也是输出头"
        "（共享权重）。",
    "gradient norm (before clipping)": "梯度范数（裁剪前）",
    "gradient norm": "梯度范数",
    "clipping threshold (grad_clip {clip})": "裁剪阈值（grad_clip {clip}）",
    "clipped: {n} of {total} steps": "被裁剪：{total} 步中的 {n} 步",
    "learning rate": "学习率",
    "planned": "计划的",
    "followed": "实际的",
    "tokens per second": "每秒词元数",
    "tokens/s": "词元/秒",
    # what the model learned over time (playground.insight.timeline)
    "Step": "步数",
    "Validation loss": "验证损失",
    "What it wrote": "它写出的文字",
    # --- figures (playground.plots) -------------------------------------------------------------
    "train": "训练",
    "loss (cross-entropy, nats)": "损失（交叉熵，奈特）",
    "step": "步数",
    "tokens seen": "已见词元数",
    "seconds": "秒",
    "The loss curve appears here once training starts.": "训练开始后，损失曲线会显示在这里。",
    "validation bits per character": "验证集每字符比特数",
    "validation loss (nats per token)": "验证损失（每词元奈特）",
    "Select two or more runs to compare their validation curves.":
        "选择两次或更多运行，比较它们的验证曲线。",
    "weight": "权重",
    "held-out accuracy": "留出集准确率",
    "accuracy": "准确率",
    "{run}: accuracy": "{run}：准确率",
    "expected": "预期",
    "weight {value}": "权重 {value}",
    "“{query}” looks at “{target}”": "“{query}”关注“{target}”",
    "key (token attended to)": "键（被关注的词元）",
    "query (token attending)": "查询（发出关注的词元）",
    "head {n}": "头 {n}",
    "probability": "概率",
    "token {n}": "词元 {n}",
    "… and {n} more tokens": "……还有 {n} 个词元",
    # --- 3 · model and training -------------------------------------------------------------------
    "The model has already trained {done} steps. Set max_steps above {done} to train it further.":
        "这个模型已经训练了 {done} 步。要继续训练，请把 max_steps 设为大于 {done} 的值。",
    "This model needs about {need} of memory to train, but only {free} is free on {device}. Make "
    "it smaller: fewer layers (n_layer), a narrower width (n_embd), a smaller batch_size or "
    "block_size.":
        "训练这个模型大约需要 {need} 内存，但 {device} 上只有 {free} 可用。请把模型调小："
        "减少层数（n_layer）、减小宽度（n_embd），或减小 batch_size 或 block_size。",
    # --- training -----------------------------------------------------------------------------
    "guessing letters at random ({value})": "随机猜字符（{value}）",
    "guessing tokens at random ({value})": "随机猜词元（{value}）",
    "knowing only letter frequencies ({value})": "只知道每个字符的频率（{value}）",
    "knowing only token frequencies ({value})": "只知道每个词元的频率（{value}）",
    "nanoGPT's big GPU model ({value})": "nanoGPT 在 GPU 上训练的大模型（{value}）",
    # --- the training coach -------------------------------------------------------------------
    "Training coach": "训练教练",
    "Nothing to flag so far.": "目前没有需要提醒的问题。",
    "Seen": "观察到",
    "Try": "可以尝试",
    "The loss became {value} at step {step}: the numbers overflowed and the run stopped.":
        "第 {step} 步时损失变成了 {value}：数值溢出，运行已停止。",
    "At step {step} the training loss jumped to {loss}, far above the {median} it had just been "
    "at.":
        "第 {step} 步时训练损失跳到了 {loss}，远高于刚才的 {median}。",
    "At step {step} the gradient norm jumped to {norm}, {ratio} times the {median} of the steps "
    "just before: one batch pulled hard on the weights. Clipping held that step to {clip}, but "
    "such spikes often come just before the loss jumps.":
        "第 {step} 步时梯度范数跳到了 {norm}，是之前那些步的 {median} 的 {ratio} 倍：一个批次"
        "猛地拉动了权重。裁剪把这一步限制在了 {clip}，但这样的尖峰常常出现在损失跳升之前。",
    "At step {step} the gradient norm jumped to {norm}, {ratio} times the {median} of the steps "
    "just before: one batch pulled hard on the weights, and such spikes often come just before "
    "the loss jumps.":
        "第 {step} 步时梯度范数跳到了 {norm}，是之前那些步的 {median} 的 {ratio} 倍：一个批次"
        "猛地拉动了权重，这样的尖峰常常出现在损失跳升之前。",
    "The training loss is going up: {recent} over the last {window} steps, against {earlier} "
    "before.":
        "训练损失在上升：最近 {window} 步为 {recent}，之前为 {earlier}。",
    "After {steps} steps the loss is still {loss}, close to {uniform} (ln {vocab}), the loss of a "
    "uniform guess: the model has not learned yet.":
        "训练了 {steps} 步之后损失仍是 {loss}，接近均匀猜测的损失 {uniform}（ln {vocab}）："
        "模型还没有学到东西。",
    "After {steps} steps the loss has stayed near {loss}, the unigram entropy of the corpus "
    "({unigram}): the model knows how common each token is but does not use the context yet.":
        "训练了 {steps} 步之后损失一直停在 {loss} 附近，也就是语料的一元熵（{unigram}）："
        "模型知道每个词元有多常见，但还没有利用上下文。",
    "The validation loss rose from {val_best} (step {best_step}) to {val_last} while the training "
    "loss fell to {train_last}: the model is memorising the training text (overfitting).":
        "验证损失从 {val_best}（第 {best_step} 步）升到了 {val_last}，而训练损失降到了 "
        "{train_last}：模型在背诵训练文本（过拟合）。",
    "The model has {params} parameters for {tokens} training tokens, {ratio} parameters per "
    "token: it can memorise the text rather than learn from it.":
        "模型有 {params} 个参数，而训练词元只有 {tokens} 个，每个词元 {ratio} 个参数："
        "它可以背下文本，而不是从中学习。",
    "Lower the learning rate, for example to lr={lr}.": "降低学习率，例如 lr={lr}。",
    "Raise the learning rate, for example to lr={lr}.": "提高学习率，例如 lr={lr}。",
    "Use a longer warmup (warmup_steps={warmup}).": "使用更长的预热（warmup_steps={warmup}）。",
    "Turn gradient clipping on (grad_clip=1.0).": "打开梯度裁剪（grad_clip=1.0）。",
    "Train in float32 (dtype=float32): {dtype} has a smaller range.":
        "用 float32 训练（dtype=float32）：{dtype} 的数值范围更小。",
    "Deep post-norm models are hard to train: use norm_placement=pre.":
        "很深的 post-norm 模型很难训练：请使用 norm_placement=pre。",
    "Start with fewer layers (n_layer={n_layer}) and add them once it learns.":
        "先用更少的层（n_layer={n_layer}），等它开始学习后再加层。",
    "Give it more steps: a loss that sits here for a while often drops suddenly once attention "
    "finds a pattern.":
        "多训练几步：停在这里一段时间的损失，常常在注意力找到规律后突然下降。",
    "Train on more text.": "用更多的文本训练。",
    "Add dropout (dropout={dropout}).": "加上 dropout（dropout={dropout}）。",
    "Use a smaller model (fewer layers or a smaller n_embd).":
        "用更小的模型（更少的层或更小的 n_embd）。",
    "Keep the model from step {best_step}, where the validation loss was lowest: stop there next "
    "time.":
        "保留第 {best_step} 步的模型，那时验证损失最低：下次在那里停止。",
    "Raise weight decay (weight_decay={weight_decay}).":
        "提高权重衰减（weight_decay={weight_decay}）。",
    # --- time estimates (playground.estimate) ------------------------------------------------------
    "{s} s": "{s} 秒",
    "{m} min {s} s": "{m} 分 {s} 秒",
    "{m} min": "{m} 分钟",
    "{h} h {m} min": "{h} 小时 {m} 分",
    "{d} days {h} h": "{d} 天 {h} 小时",
    # --- the training coach: healthy runs, and what a loss means ------------------------------
    "At {loss} it is as good as nanoGPT's big GPU model (1.47): real words in Shakespeare-like "
    "lines.":
        "损失 {loss}：和 nanoGPT 在 GPU 上训练的大模型（1.47）一样好：莎士比亚风格的诗行里是真正的单词。",
    "At {loss} it has learned the shape of a play and most words come out right; the sentences "
    "do not make sense yet.":
        "损失 {loss}：它学会了剧本的样子，大多数单词都拼对了；句子还说不通。",
    "At {loss} it has learned the shape of a play: speakers' names, real words and phrases that "
    "almost read.":
        "损失 {loss}：它学会了剧本的样子：说话人的名字、真正的单词，和几乎能读通的短语。",
    "At {loss} it writes short real words and the layout of a play (names, line breaks), among "
    "many made-up words.":
        "损失 {loss}：它能写出简短的真单词和剧本的版式（人名、换行），但夹杂着许多编造的词。",
    "At {loss} it has learned spaces, line breaks and common letter pairs: word-sized chunks, but "
    "hardly a real word.":
        "损失 {loss}：它学会了空格、换行和常见的字母组合：有单词大小的片段，但几乎没有真正的单词。",
    "At {loss} it knows which letters are common and little else: its text is letter soup.":
        "损失 {loss}：它只知道哪些字母常见：写出的是一锅字母汤。",
    "The loss is not a number: the run broke down, so there is no text to speak of.":
        "损失不是一个数：这次运行崩溃了，谈不上写出什么文本。",
    "At {loss} it still guesses nearly at random: its text is noise.":
        "损失 {loss}：它几乎还在随机乱猜：写出的是噪声。",
    "At {loss} it knows only how common each token is: the right pieces in the wrong order.":
        "损失 {loss}：它只知道每个词元有多常见：零件对了，顺序不对。",
    "At {loss} it uses the context: well below the {unigram} of knowing only how common each "
    "token is.":
        "损失 {loss}：它用上了上下文：远低于只知道词元频率时的 {unigram}。",
    "At {loss} it has learned something beyond a random guess; lower is better.":
        "损失 {loss}：它学到了比随机猜测更多的东西；越低越好。",
    "The validation loss fell from {first} to {last} in {steps} steps and was still falling at "
    "the end.":
        "验证损失在 {steps} 步内从 {first} 降到了 {last}，到最后还在下降。",
    "The validation loss fell from {first} to {last} in {steps} steps and has levelled off.":
        "验证损失在 {steps} 步内从 {first} 降到了 {last}，已经趋于平稳。",
    "Train longer: tick 'Continue training' and raise max_steps to {more}.":
        "训练更久：勾选“继续训练当前模型”，并把 max_steps 提高到 {more}。",
    "A bigger model (more layers, a larger n_embd) or more text would take it lower.":
        "更大的模型（更多的层、更大的 n_embd）或更多的文本能让它降得更低。",
    "Or try optimizer=muon: it often learns faster per step.":
        "或者试试 optimizer=muon：它每步往往学得更快。",
    "{clipped} of {steps} steps had their gradients clipped (norm about {norm}, just over "
    "grad_clip {clip}; the red marks under 'How training is going'): normal for this recipe. "
    "Clipping only shortens a step, and the loss still fell.":
        "{steps} 步中有 {clipped} 步的梯度被裁剪了（范数约 {norm}，略高于 grad_clip {clip}；即"
        "“训练进展如何”图上的红色标记）：这个配方就是这样。裁剪只是把一步缩短，损失照样在下降。",
    "The training loss went from {first} to {last} in {steps} steps.":
        "训练损失在 {steps} 步内从 {first} 变成了 {last}。",
    "The validation loss, measured on text the model never trains on, comes at step {step}.":
        "验证损失（在模型从不训练的文本上测量）将在第 {step} 步给出。",
    # --- disk budgets (runtime.disk): a save refused before it starts ---------------------------
    "This model's bundle (about {size}) would take your saved files past this server's limit of "
    "{limit} per visitor, so it was not saved; everything saved before is kept. The model is "
    "still here for the Generate and Attention tabs. To save a model, train a smaller one (fewer "
    "layers or a smaller n_embd, under Advanced).":
        "这个模型的模型包（约 {size}）会让你保存的文件超出本服务器每位访客 {limit} 的上限，所以没有"
        "保存；之前保存的一切都还在。模型仍在这里，可以在“生成”和“注意力”标签页使用。要保存模型，"
        "请训练一个更小的（在“高级”里减少层数或减小 n_embd）。",
    "This server's space for saved models ({limit} for all visitors) is nearly full, so this "
    "model's bundle (about {size}) was not saved; everything saved before is kept. The model is "
    "still here for the Generate and Attention tabs; try again in a while (saved models of "
    "closed pages are removed), or train a smaller model.":
        "本服务器存放模型的空间（所有访客共 {limit}）快满了，所以这个模型的模型包（约 {size}）没有"
        "保存；之前保存的一切都还在。模型仍在这里，可以在“生成”和“注意力”标签页使用；请过一会儿再试"
        "（已关闭页面保存的模型会被清除），或训练一个更小的模型。",
    # --- the run driver (playground.runs)
    "Note": "提示",
    "There is no model to {action} yet. Train one on the 'Model & training' tab (or upload a "
    "bundle there) first.":
        "还没有模型可以{action}：请先在“模型与训练”标签页训练一个（或在那里上传模型包）。",
    "continue training": "继续训练",
    "The model here is the ready-made one that comes with the playground, not one of yours. "
    "Train your own on the 'Model & training' tab (press Start training, with 'Continue "
    "training the current model' unticked), then {action} it.":
        "这里的模型是 Playground 自带的现成模型，不是你自己的。请先在“模型与训练”标签页训练你自己的模型"
        "（不勾选“继续训练当前模型”，点击“开始训练”），然后再{action}。",
    "A training run is already going (or waiting for its turn). Press Stop first, or wait for it "
    "to finish.":
        "已经有一个训练在进行（或在排队等待）。请先点击“停止”，或等它结束。",
    "A training run is already going in this session; press Stop first.":
        "这个会话中已经有一个训练在进行；请先点击“停止”。",
    "No tokenizer was trained yet, so this run reads the text character by character ({vocab} "
    "distinct characters). The Tokenizer tab (tab 2) can train a BPE tokenizer instead.":
        "还没有训练分词器，所以这次运行按字符读取文本（{vocab} 个不同的字符）。“分词器”标签页（第 "
        "2 个标签页）可以改为训练一个 BPE 分词器。",
    "The tokenizer was trained on a different text than the corpus now chosen ({name}). Train the "
    "tokenizer again (tab 2) first.":
        "分词器是在另一段文本上训练的，而不是现在选择的语料（{name}）。请先重新训练分词器（第 2 "
        "个标签页）。",
    "{preset} is a GPU recipe: on this machine's CPU it would take about {time}. Stop ends it at "
    "any time and keeps the model trained so far.":
        "{preset} 是 GPU 配方：在这台机器的 CPU 上大约需要 {time}。随时可以点击“停止”结束它，"
        "并保留到那时为止训练好的模型。",
    "Long run": "运行时间很长",
    "This run may take about {time} on this machine. Stop ends it at any time and keeps the model "
    "trained so far.":
        "这次运行在这台机器上可能需要约 {time}。随时可以点击“停止”结束它，并保留到那时为止训练好的模型。",
    "Stopped at step {step}: the page was closed, and the model was kept for its return.":
        "在第 {step} 步停止：页面关闭了，模型已为你回来保留。",
    # --- toy tasks (playground.tasks) ------------------------------------------------------------
    "Copy: write the letters before > again, in the same order.":
        "复制：把 > 前面的字母按原来的顺序再写一遍。",
    "Expect an offset diagonal: writing the i-th letter of the answer, a head of the last layer "
    "looks at the i-th letter of the question, one step further along each time. This is an "
    "induction head: find the letter just written earlier in the line, and look at the one after "
    "it.":
        "预期看到一条错开的对角线：写答案的第 i 个字母时，最后一层的某个头会看问题的第 i 个字母，"
        "每写一个就往后挪一格。这就是归纳头（induction head）：在这一行前面找到刚写下的那个字母，"
        "再看它后面的那一个。",
    "Reverse: write the letters before > backwards.": "倒序：把 > 前面的字母倒过来写。",
    "Expect an anti-diagonal: writing the i-th letter of the answer, a head looks at the i-th "
    "letter from the end of the question, one step further back each time.":
        "预期看到一条反对角线：写答案的第 i 个字母时，某个头会看问题中倒数第 i 个字母，"
        "每写一个就往前挪一格。",
    "Sort: write the letters before > in alphabetical order.":
        "排序：把 > 前面的字母按字母表顺序写出来。",
    "Expect each answer letter to look at where that letter stands in the question: bright "
    "cells that jump around, not a line, because the order comes from the letters, not from "
    "their places.":
        "预期答案中的每个字母都会去看这个字母在问题里的位置：亮格会跳来跳去，而不是连成一条线，"
        "因为顺序由字母本身决定，而不是由它们的位置决定。",
    "Addition: add the two numbers. Every number is written backwards, ones digit first and "
    "filled with zeros (27 is 720, 385 is 583, their sum 412 is 2140): the way you add on paper, "
    "from the right, so each digit of the sum needs only the two digits of its place and the "
    "carry.":
        "加法：把两个数相加。每个数都倒着写，个位在前，不足的位补零（27 写成 720，385 写成 583，"
        "它们的和 412 写成 2140）：就像笔算那样从右往左算，所以和的每一位只需要同一位上的两个数字和进位。",
    "Expect each digit of the sum to look at the two digits of its place, four positions apart in "
    "the question (the ones digits first), and at the place before for the carry: two or three "
    "bright cells per row, moving right together.":
        "预期和的每一位都会去看同一位上的两个数字（在问题里相隔四个位置，个位在最前），并看前一位"
        "以得到进位：每行两三个亮格，一起向右移动。",
    "Brackets: answer y if the brackets are balanced (every one closed, never closed before it "
    "opened), n if not.":
        "括号：如果括号是配对的（每个都闭合了，且没有先闭合再打开），回答 y，否则回答 n。",
    "Expect no single bright cell: to count, the answer looks at every bracket about evenly, so "
    "its row of the map is spread across the question.":
        "预期不会只有一个亮格：为了计数，答案会差不多平均地看每一个括号，所以它在图中的那一行"
        "铺满整个问题。",
    "Lookup: the line lists keys with their values (a letter, then a digit); after : comes a key, "
    "and the answer is its value.":
        "查表：这一行列出键和它们的值（一个字母，后面跟一个数字）；: 后面是一个键，答案就是它的值。",
    "Expect one bright cell per row: at >, a head of the last layer looks at the value just after "
    "the key asked for. The position of each value knows its key because something copied the key "
    "into it: an earlier layer, or the token shift.":
        "预期每行只有一个亮格：在 > 处，最后一层的某个头会看被问到的键后面紧跟着的值。每个值所在的位置"
        "知道自己的键，因为有东西把键复制了进来：前面的一层，或者词元平移（token shift）。",
    "{pattern} In this model, layer {layer} head {head} shows it most: on the held-out problems "
    "{share} of its attention from the answer positions falls on the expected letters.":
        "{pattern}在这个模型里，第 {layer} 层第 {head} 个头最明显：在留出的题目上，它从答案位置"
        "发出的注意力有 {share} 落在预期的字符上。",
    "Example: `{example}`": "例子：`{example}`",
    "{pattern} In this model, layer {layer} head {head} shows it most: on the held-out problems "
    "{share} of its attention from the answer positions falls on the expected cells. The model "
    "has the token shift, so each position also carries the letter before it: the head may look at "
    "the letter or at the place right after it.":
        "{pattern}在这个模型里，第 {layer} 层第 {head} 个头最明显：在留出的题目上，它从答案位置"
        "发出的注意力有 {share} 落在预期的格子上。这个模型用了词元平移（token shift），每个位置也带着"
        "前一个字母，所以这个头可能看那个字母本身，也可能看它右边紧挨着的那一格。",
    "The training settings are now its preset, {preset}: about {accuracy} of {n} held-out "
    "problems answered exactly, in one to three minutes on two CPU cores. After training, the "
    "Attention and Inside tabs open on a held-out problem with the expected cells marked.":
        "训练设置已换成它的预设 {preset}：在两个 CPU 核上一到三分钟，{n} 道留出题目中约 {accuracy} "
        "能完全答对。训练之后，“注意力”和“模型内部”标签页会打开一道留出题目，并标出预期的格子。",
    # --- one head's arithmetic (insight.head_steps) --------------------------------------------
    "step {number} of {total}": "第 {number} 步，共 {total} 步",
    "1. The query": "1. 查询（query）",
    "The token {token} at position {position} asks its question: its vector times the head's "
    "query matrix W_q gives {hs} numbers.":
        "位置 {position} 上的词元 {token} 提出它的问题：它的向量乘以这个头的查询矩阵 W_q，"
        "得到 {hs} 个数。",
    "2. The keys": "2. 键（key）",
    "Every token up to it offers a key: its vector times W_k. Tokens whose key points the same "
    "way as the query will get attention.":
        "到它为止的每个词元都给出一个键：它的向量乘以 W_k。键和查询方向一致的词元会得到注意力。",
    "QK-norm": "QK 归一化",
    "This model rescales each query and key to the same size (RMSNorm with learned gains), so "
    "only their directions and the gains decide the scores.":
        "这个模型把每个查询和键缩放到同样的大小（带可学习增益的 RMSNorm），所以分数只由它们的方向"
        "和增益决定。",
    "RoPE: the rotation": "RoPE：旋转",
    "This model turns the query and every key by an angle that grows with their position (RoPE), "
    "so their dot product depends on how far apart they are.":
        "这个模型把查询和每个键按随位置增大的角度旋转（RoPE），所以它们的点积取决于两者相距多远。",
    "3. Dot products": "3. 点积",
    "Multiply the query by each key, number by number, and add up: one score per token. Tokens "
    "after position {position} get scores too, but the mask will hide them.":
        "把查询和每个键逐个数相乘再相加：每个词元得到一个分数。位置 {position} 之后的词元也有分数，"
        "但掩码会把它们遮住。",
    "4. Divide by √d_k": "4. 除以 √d_k",
    "Divide every score by √{hs} = {root}, so the scores do not grow with the head size and the "
    "softmax stays soft.":
        "把每个分数除以 √{hs} = {root}，这样分数不会随头的大小变大，softmax 也保持平缓。",
    "5. The causal mask": "5. 因果掩码",
    "A token may not look at tokens after it: their scores become −∞, which the softmax turns "
    "into 0.":
        "一个词元不能看它后面的词元：它们的分数变成 −∞，softmax 会把它变成 0。",
    "6. Softmax": "6. Softmax（归一化）",
    "e to the power of each score, divided by their sum: weights between 0 and 1 that add up to "
    "1. This row is the row of position {position} in the attention map.":
        "对每个分数取 e 的幂，再除以它们的和：得到 0 到 1 之间、加起来等于 1 的权重。这一行就是"
        "注意力图中位置 {position} 的那一行。",
    "7. The values": "7. 值（value）",
    "Every token also offers a value (its vector times W_v): what it passes on when it is looked "
    "at.":
        "每个词元还给出一个值（它的向量乘以 W_v）：被看到时它传递出去的内容。",
    "8. The weighted sum": "8. 加权和",
    "Add up the values, each times its weight: the {hs} numbers this head read for position "
    "{position}.":
        "把每个值乘以它的权重再相加：这就是这个头为位置 {position} 读到的 {hs} 个数。",
    "9. Into the residual stream": "9. 加入残差流",
    "The head's slice of the output matrix W_o turns those {hs} numbers into {width}, added to "
    "the token's vector in the residual stream (size {size}).":
        "输出矩阵 W_o 中属于这个头的那一段把这 {hs} 个数变成 {width} 个数，加到残差流中这个词元的"
        "向量上（大小 {size}）。",
    # --- the class board (insight.board) ------------------------------------------------------
    "The class code in this link is not one the playground makes (16 letters, digits, - or _). "
    "Ask your teacher for the link again.":
        "这个链接里的班级代码不是本 Playground 生成的（应为 16 个字母、数字、- 或 _）。请向老师重新要一次链接。",
    "Choose a nickname first: the class board shows your runs under it (not your real name, "
    "unless you want it to).":
        "请先取一个昵称：班级看板会用它来显示你的训练（不必是你的真名，除非你愿意）。",
    "That file was not uploaded from this page, so it was not opened: a page may only use the "
    "files it uploaded itself. Upload the file again here.":
        "该文件不是从本页面上传的，因此没有打开：页面只能使用它自己上传的文件。请在这里重新上传该文件。",

    # =========================================================================================
    # The page's own messages: what the tabs' handlers and the server that guards the page write
    # (status lines, summaries, progress, their errors); playground.ui and playground.server say
    # them. Markdown: a "**" that closes right after Chinese punctuation needs a space (or
    # punctuation) after it, or it stays literal; hence "**注意：** {note}".
    # =========================================================================================
    # --- titles of the page's error messages ----------------------------------------------------
    "Cannot do that yet": "暂时无法这样做",
    "Warning": "注意",
    "Unexpected error": "意外错误",
    "No model yet": "还没有模型",
    "Already training": "正在训练",
    # --- no model yet (session.require_model): what the visitor wanted ---------------------------
    "generate with": "用来生成文本",
    "look inside": "查看内部",
    "export": "导出",
    "push": "推送到 Hub",
    "The model is training right now: wait for the run to end (or press Stop), then {action} it.":
        "模型正在训练：请等这次运行结束（或点击“停止”），然后再{action}。",
    # --- the page's door (server.guard): requests and jobs refused before Gradio takes them -----
    "This request is larger than the {limit} this page takes, so it was not read. For a long "
    "text, upload it as a file (up to 5 MB).":
        "这个请求超过了本页面接受的 {limit}，所以没有读取。长文本请作为文件上传（最多 5 MB）。",
    "The value sent for '{input}' is {size} long; this input takes at most {limit}, so the call "
    "was refused.":
        "发给“{input}”的值长 {size}，这个输入最多只接受 {limit}，所以拒绝了这次调用。",
    "This page already has a job waiting or running (training, a tokenizer, generating...). Wait "
    "for it to finish, or press Stop, then try again.":
        "这个页面已经有一个任务在排队或运行（训练、分词器、生成……）。请等它结束，或点击“停止”，"
        "然后再试。",
    "This page has no function {index}; reload the page.": "这个页面没有编号为 {index} 的函数；请刷新页面。",
    "The call sent {sent} values where this function takes {takes}; reload the page.":
        "这次调用发送了 {sent} 个值，而这个函数需要 {takes} 个；请刷新页面。",
    "This network has uploaded {limit} in the last hour, as much as the page takes; try again "
    "later.":
        "你所在的网络在过去一小时内已上传 {limit}，达到了本页面的上限；请稍后再试。",
    "Too many jobs from your network are waiting or running ({n}). Try again when one of them "
    "has finished.":
        "来自你所在网络的任务在排队或运行的太多了（{n} 个）。请等其中一个结束后再试。",
    "Your network already has {n} training runs waiting or under way, as many as one network "
    "may have here, so that visitors elsewhere can train too. Try again when one of them has "
    "finished.":
        "你所在的网络已有 {n} 个训练在排队或进行中，这是一个网络在这里最多能有的数量，"
        "好让其他地方的访客也能训练。请等其中一个结束后再试。",
    # --- 1 · corpus -------------------------------------------------------------------------------
    "**Corpus: {name}** · {characters} characters · {lines} lines · {words} words · {distinct} "
    "distinct characters.":
        "**语料：{name}** · {characters} 个字符 · {lines} 行 · {words} 个词 · {distinct} "
        "种不同字符。",
    "Next: train a tokenizer on it (tab 2).": "下一步：在它上面训练一个分词器（第 2 个标签页）。",
    "No file yet: drop one or more .txt or .md files in the box above.":
        "还没有文件：请把一个或多个 .txt 或 .md 文件拖到上面的框里。",
    "Unknown source {source}: choose one of {choices}.":
        "未知的来源 {source}：请从 {choices} 中选择一个。",
    "Until you train your own, Generate, Attention and Inside use a ready-made model of this "
    "task that comes with the playground ({preset}, trained with these settings).":
        "在你训练出自己的模型之前，“生成”“注意力”“模型内部”使用 Playground 自带的这个任务的现成模型"
        "（{preset}，用这些设置训练而成）。",
    # --- 2 · tokenizer ----------------------------------------------------------------------------
    "**Character tokenizer trained on {name}:** {vocab} tokens in the vocabulary · "
    "{chars_per_token} characters per token on average.":
        "**已在 {name} 上训练好字符级分词器：** 词表中有 {vocab} 个词元 · 平均每个词元 "
        "{chars_per_token} 个字符。",
    "**BPE tokenizer trained on {name}:** {vocab} tokens in the vocabulary · {chars_per_token} "
    "characters per token on average.":
        "**已在 {name} 上训练好 BPE 分词器：** 词表中有 {vocab} 个词元 · 平均每个词元 "
        "{chars_per_token} 个字符。",
    "This text only supports {actual} BPE tokens, fewer than the {requested} asked for (no other "
    "pair of tokens occurs twice). The smaller vocabulary is used; a longer text would allow more.":
        "这段文本只能支持 {actual} 个 BPE 词元，少于要求的 {requested} "
        "个（再也没有哪一对词元出现两次以上）。将使用这个较小的词表；更长的文本能支持更多词元。",
    "**Note:** {note}": "**注意：** {note}",
    "Next: set up and train a model (tab 3).": "下一步：设置并训练一个模型（第 3 个标签页）。",
    "**First merges learned** (␣ is a space):": "**最先学到的合并**（␣ 表示空格）：",
    "0 / {total}: {n} tokens (bytes)": "0 / {total}：{n} 个词元（字节）",
    "{merge} · {n} tokens": "{merge} · {n} 个词元",
    # --- 3 · model and training -------------------------------------------------------------------
    "Unknown preset {name}: choose one of {choices}.":
        "未知的预设 {name}：请从 {choices} 中选择一个。",
    "{name} is empty: type a value.": "{name} 是空的：请输入一个值。",
    "Expected {expected} settings, got {got}.": "应有 {expected} 项设置，收到的是 {got} 项。",
    "**Check the settings:** {error}": "**请检查设置：** {error}",
    "**{params} parameters** · about **{memory}** of memory to train · {tokens} tokens per step · "
    "{steps} steps.":
        "**{params} 个参数** · 训练约需 **{memory}** 内存 · 每步 {tokens} 个词元 · 共 {steps} 步。",
    "**{params} parameters** (vocabulary {vocab} until you train a tokenizer) · about "
    "**{memory}** of memory to train · {tokens} tokens per step · {steps} steps.":
        "**{params} 个参数**（训练分词器之前按词表大小 {vocab} 计算） · 训练约需 **{memory}** "
        "内存 · 每步 {tokens} 个词元 · 共 {steps} 步。",
    "**Device:** {device}": "**设备：** {device}",
    "**Device:** ZeroGPU: a GPU is attached for each stretch of training.":
        "**设备：** ZeroGPU：每一段训练都会临时接上一块 GPU。",
    "**Device:** unknown (PyTorch could not describe it).":
        "**设备：** 未知（PyTorch 无法描述它）。",
    "**Training:** step {step} / {max_steps} · {tokens_per_s} tokens/s · elapsed {elapsed} · "
    "about {left} left · train loss {loss}":
        "**训练中：** 第 {step} / {max_steps} 步 · 每秒 {tokens_per_s} 个词元 · 已用 {elapsed} · "
        "约剩 {left} · 训练损失 {loss}",
    "validation loss {val_loss} (step {step})": "验证损失 {val_loss}（第 {step} 步）",
    "── step {step} · validation loss {val_loss} ──": "── 第 {step} 步 · 验证损失 {val_loss} ──",
    "Nothing is training right now.": "现在没有正在进行的训练。",
    "Stopping after the current step…": "将在当前这一步结束后停止……",
    "**Starting** on {name}…": "**正在开始训练**，语料：{name}……",
    "Done.": "完成。",
    "Stopped.": "已停止。",
    "Problem:": "出现问题：",
    "The run ended.": "运行已结束。",
    "Last validation loss {val_loss} at step {step} ({val_bpc} bits per character).":
        "最后一次验证损失为 {val_loss}（第 {step} 步，每字符 {val_bpc} 比特）。",
    "The model is ready: try the Generate and Attention tabs, or download it below.":
        "模型已就绪：试试“生成”和“注意力”标签页，或在下方下载它。",
    "No file: upload a .zip bundle saved by this app.":
        "没有文件：请上传本应用保存的 .zip 模型包。",
    "A training run is going: stop it before loading a bundle.":
        "正在训练：请先停止训练，再加载模型包。",
    "**Loaded** a model with {params} parameters and a {kind} tokenizer ({vocab} tokens). "
    "Generate with it, or tick 'Continue training' and raise max_steps to train it further.":
        "**已加载** 一个有 {params} 个参数的模型，使用 {kind} 分词器（{vocab} 个词元）。"
        "可以用它生成文本，或勾选“继续训练当前模型”并提高 max_steps 来继续训练。",
    "**Loaded** a model with {params} parameters and a {kind} tokenizer ({vocab} tokens), trained "
    "{step} steps. Generate with it, or tick 'Continue training' and raise max_steps to train it "
    "further.":
        "**已加载** 一个有 {params} 个参数的模型，使用 {kind} 分词器（{vocab} 个词元），已训练 "
        "{step} 步。可以用它生成文本，或勾选“继续训练当前模型”并提高 max_steps 来继续训练。",
    # --- 4 · generate -----------------------------------------------------------------------------
    "The shortest span must be from {low} to {high} characters.":
        "最短片段必须在 {low} 到 {high} 个字符之间。",
    "The 10 likeliest next tokens": "最可能的 10 个下一个词元",
    "Stopped: {n} characters written.": "已停止：写了 {n} 个字符。",
    "Written with the fixed seed {seed}.": "用固定的随机种子 {seed} 写成。",
    "Written by the ready-made model (the {preset} preset, trained before you came). Train "
    "your own on tab 3; it replaces this one.":
        "这段文字由现成的模型写成（用 {preset} 预设事先训练好）。在第 3 个标签页训练你自己的模型，"
        "它会取代这个模型。",
    "Written with seed {seed}, drawn at random: tick “Same text each time” to keep it and write "
    "this text again.":
        "用随机抽到的种子 {seed} 写成：勾选“每次写出同样的文本”即可保留它，再写出这段文本。",
    "Nothing is being written right now.": "现在没有正在生成的文本。",
    # --- 5 · attention ----------------------------------------------------------------------------
    "Layer {layer}, head {head}": "第 {layer} 层，第 {head} 个头",
    "All {n_head} heads of layer {layer}": "第 {layer} 层的全部 {n_head} 个头",
    "{title}: mostly {note}": "{title}：主要看{note}",
    "{tokens} tokens · {layers} layers × {heads} heads. Each row is a token; its colours show how "
    "much it looks at each earlier token (a row sums to 1). Change the layer or head to compare.":
        "{tokens} 个词元 · {layers} 层 × {heads} 个头。每一行是一个词元；"
        "颜色表示它对每个更早的词元关注多少（每行之和为 1）。换一个层或头来比较。",
    # --- 5b · inside the model --------------------------------------------------------------------
    "A run is training this model right now: look inside once it ends (or after Stop).":
        "有一次运行正在训练这个模型：等它结束（或按停止）后再看模型内部。",
    "**{n} tokens.** Position {position} is “{token}”; the model's likeliest next token is "
    "“{guess}” ({p}). Each row of the lens reads the vector after one more layer.":
        "**{n} 个词元。** 位置 {position} 是“{token}”；模型认为最可能的下一个词元是“{guess}”"
        "（{p}）。lens 的每一行读取的是多经过一层之后的向量。",
    "Temperature {temperature}: the likeliest token, “{token}”, now has {p} (the model itself gives "
    "it {raw}). Below 1 sharpens the distribution, above 1 flattens it; 0 always takes the "
    "likeliest.":
        "温度 {temperature}：最可能的词元“{token}”现在的概率是 {p}（模型本身给它 {raw}）。"
        "低于 1 让分布更尖锐，高于 1 让它更平坦；0 总是选最可能的那个。",
    "**Mean surprise: {mean} nats per token** over {n} tokens: the loss on this text, measured as "
    "training measures it.":
        "**平均意外程度：每个词元 {mean} 奈特**，共 {n} 个词元：这就是这段文本上的损失，"
        "与训练时的算法相同。",
    "The last evaluation's validation loss was {val_loss} (step {step}), on other windows of the "
    "validation text.":
        "最近一次评估的验证损失是 {val_loss}（第 {step} 步），算在验证文本的其他窗口上。",
    "“{token}” ({loss}, it expected “{guess}”)": "“{token}”（{loss}，它预期的是“{guess}”）",
    "Most surprising: {tokens}.": "最意外的：{tokens}。",
    # step by step, and the samples of each evaluation
    "This model's run writes no samples: set the sample length (sample_tokens, under Advanced on "
    "the training tab) above 0, and each evaluation adds a row here.":
        "这个模型的运行不写样本：把样本长度（训练标签页“高级”里的 sample_tokens）设为大于 0，"
        "每次评估就会在这里添上一行。",
    "No evaluation has written a sample yet: each evaluation (every {interval} steps) adds a row "
    "here.":
        "还没有哪次评估写出样本：每次评估（每 {interval} 步一次）都会在这里添上一行。",
    "No model yet: Step ×1 starts one with the training tab's settings (its first press also "
    "measures the loss before any training).":
        "还没有模型：“训练 ×1 步”会用训练标签页的设置新建一个（第一次按下时还会先测量训练之前的损失）。",
    "This is the ready-made model (the {preset} preset, trained before you came): Step ×1 starts "
    "a model of your own with the training tab's settings (its first press also measures the "
    "loss before any training).":
        "这是现成的模型（用 {preset} 预设事先训练好）：“训练 ×1 步”会用训练标签页的设置新建一个你自己的模型"
        "（第一次按下时还会先测量训练之前的损失）。",
    "**Step {step}** of {max_steps}: each press trains that many more steps.":
        "**第 {step} 步**，共 {max_steps} 步：每按一次，就再训练那么多步。",
    "**Stepping:** step {step} of {max_steps} ({done} / {steps} of this press) · training loss "
    "{loss}":
        "**正在逐步训练：** 第 {step} 步，共 {max_steps} 步（这一次 {done} / {steps}）· 训练损失 {loss}",
    "**Step {step}** of {max_steps}: {done} more in {seconds} s.":
        "**第 {step} 步**，共 {max_steps} 步：{seconds} 秒里多训练了 {done} 步。",
    "Training loss {loss}.": "训练损失 {loss}。",
    "Validation loss {val_loss} at step {eval_step}.": "第 {eval_step} 步的验证损失为 {val_loss}。",
    "That was the last of its {max_steps} steps: raise max_steps on the training tab to step "
    "further.":
        "这是它 {max_steps} 步中的最后一步：在训练标签页上调高 max_steps，才能继续逐步训练。",
    "A training run is going: wait for it to end (or press Stop on the training tab), then step.":
        "有一次训练正在进行：等它结束（或在训练标签页上按停止）之后再逐步训练。",
    # --- 6 · compare runs -------------------------------------------------------------------------
    "setting": "设置",
    "final validation loss": "最终验证损失",
    "final held-out accuracy": "最终留出集准确率",
    "final bits per character": "最终每字符比特数",
    "steps": "步数",
    "parameters": "参数量",
    # --- 8 · the class board (board_tab) ----------------------------------------------------------
    "name": "名字",
    "sample": "样例",
    "No one in this class has shared a run yet. Above, pick a nickname and tick 'Share my runs "
    "with the class': each run you finish then appears here, beside your classmates'.":
        "这个班级还没有人分享训练。在上方取一个昵称，勾选“与班级分享我的训练”："
        "之后你完成的每次训练都会出现在这里，和同学们的放在一起。",
    "Runs this class shared: {n}, best first (by {by}). The board follows new runs as they "
    "finish.":
        "这个班级分享了 {n} 次训练，最好的排在前面（按{by}排序）。新的训练一结束，看板就会跟着更新。",
    "Your runs are not shared with the class ({n} taken off the board).":
        "你的训练不再与班级分享（已从看板撤下 {n} 个）。",
    "Shared as {name}: your run '{run}' is on the class board, and each run you finish from now "
    "on goes there too.":
        "已用 {name} 这个昵称分享：你的训练“{run}”已经在班级看板上，从现在起你完成的每次训练也会放上去。",
    "You will share as {name}: each run you finish goes to the class board.":
        "你将用 {name} 这个昵称分享：你完成的每次训练都会放到班级看板上。",
    "Only its name, settings, loss curve, final figures and one sample are shared: never your "
    "text, tokenizer or model.":
        "只分享训练的名字、设置、损失曲线、最终数据和一段样例：绝不分享你的文本、分词器或模型。",
    "Class board: on. Learners who tick 'Share my runs with the class' on its Class board tab "
    "appear there, best first; open the link yourself to watch it (project it for the "
    "class). Every link you make here keeps this board.":
        "班级看板：已开启。在“班级看板”标签页上勾选“与班级分享我的训练”的学习者会出现在那里，"
        "成绩最好的排在前面；你自己打开这个链接就能看到它（可以投影给全班看）。你在这里生成的每个链接都沿用这个看板。",
    "Pick the run to start from: train a run first (tab 3).":
        "请选择作为起点的运行：先训练一次（第 3 个标签页）。",
    "Type or pick the new value of {setting}.": "请输入或选择 {setting} 的新值。",
    "The text and tokenizer of {base} are no longer kept; pick a newer run.":
        "{base} 的文本和分词器已不再保留；请选择一个更新的运行。",
    "Training {name}: the same seed and data as {base}, only {setting} changed. Watch it on the "
    "training tab.":
        "正在训练 {name}：种子和数据与 {base} 相同，只改了 {setting}。请在训练标签页查看。",
    "Note: these runs use nanoGPT's single random stream (rng_stream=nanogpt), so a change to the "
    "model also changes which batches it sees. For a comparison of {setting} alone, set "
    "rng_stream to separate in both runs.":
        "注意：这些运行使用 nanoGPT 的单一随机数流（rng_stream=nanogpt），"
        "所以改动模型也会改变它看到的批次。若只想比较 {setting} 的影响，请在两次运行中都把 "
        "rng_stream 设为 separate。",
    # --- 7 · export and share ---------------------------------------------------------------------
    "The model has no saved bundle yet: let a training run finish (or stop it) first, then push.":
        "模型还没有保存的模型包：请先让训练运行结束（或停止它），然后再推送。",
    "Sign in with Hugging Face first (the button above): the model then goes to your own account.":
        "请先用 Hugging Face 登录（上方的 Sign in with Hugging Face 按钮）：模型随后会推送到你自己的账号。",
    "Unknown corpus choice {choice}.": "未知的语料选项 {choice}。",
    # --- tokenizer ----------------------------------------------------------------------------
    "Merge {n} of {total}: {left} + {right} becomes {merged}":
        "第 {n} 次合并（共 {total} 次）：{left} + {right} 合成 {merged}",
    "A character tokenizer learns no merges: each character is its own token.":
        "字符级分词器不学习合并：每个字符就是一个词元。",
    # --- generation ---------------------------------------------------------------------------
    "Memorisation check": "背诵检查",
    "{share} of the generated text ({copied} of {total} characters) occurs word for word in the "
    "training text.":
        "生成文本中有 {share}（{total} 个字符中的 {copied} 个）与训练文本逐字相同。",
    "No span of {n} or more characters was copied from the training text.":
        "没有 {n} 个字符或更长的片段是从训练文本中复制的。",
    # --- comparing runs -----------------------------------------------------------------------
    "These runs use different tokenizers, so they are compared in bits per character.":
        "这些运行使用了不同的分词器，因此用每字符比特数来比较。",
    "The selected runs have the same settings.": "所选运行的设置相同。",
    # --- export and sharing -------------------------------------------------------------------
    "Uploaded to {url}.": "已上传到 {url}。",
    "Your own text is not part of the link: whoever opens it must upload or paste the same text.":
        "你自己的文本不包含在链接中：打开链接的人需要上传或粘贴同样的文本。",
    "Settings restored from the link.": "已从链接恢复设置。",
    "The link also held {n} settings this version does not know; they were ignored.":
        "链接中还有 {n} 个这个版本不认识的设置，已忽略。",
    "The lesson in this link cannot be used: {reason}": "这个链接中的课程无法使用：{reason}",
    "Names of tabs or settings this version does not know were left out of the lesson: {n}.":
        "课程中这个版本不认识的标签页或设置名称已略去：{n} 个。",
    "This lesson shows: {tabs}.": "这节课显示：{tabs}。",
    "Settings shown: {n} of {total}; the others are hidden and keep this page's values (the "
    "preset menu and the bundle upload too, since either changes every setting).":
        "显示的设置：{total} 个中的 {n} 个；其余的隐藏，并保持本页面的取值（预设菜单和模型包上传也隐藏，"
        "因为两者都会改变所有设置）。",
    "Settings shown: all of them.": "显示的设置：全部。",
    "Task opened: {task}.": "打开的任务：{task}。",
    "The guided tour opens with the page.": "页面打开时会显示引导教程。",
    "The page opens like this:": "页面打开时是这样：",
    # --- errors -------------------------------------------------------------------------------
    "Something unexpected went wrong (the details are in the server log). Nothing you made so far "
    "was lost; try again, or change the settings.":
        "发生了意外错误（详情在服务器日志中）。你到目前为止做的一切都没有丢失；请重试，"
        "或修改设置。",
    "The settings in this link cannot be used: {reason}": "这个链接中的设置无法使用：{reason}",
    "Train at least two runs to compare them.": "至少训练两次运行才能比较。",
    # --- 3 · the first screen: presets, estimates, progress, the end of a run -----------------
    "⚠️ **A GPU recipe:** on this machine's CPU it would take about {time}. Pick a CPU preset here "
    "({preset}, for one), or run it on a machine with a GPU.":
        "⚠️ **这是 GPU 配方：** 在这台机器的 CPU 上大约需要 {time}。请在这里选一个 CPU 预设（例如 "
        "{preset}），或在有 GPU 的机器上运行它。",
    "⚠️ **About {time}** on this machine: longer than {limit}. Lower the training steps "
    "(max_steps, under Advanced) or pick a smaller preset; Stop keeps the model trained so far.":
        "⚠️ 在这台机器上 **大约需要 {time}**：超过了 {limit}。请减少训练步数（“高级”里的 max_steps）"
        "或选一个更小的预设；“停止”会保留到那时为止训练好的模型。",
    "**About {time}** on this machine.": "在这台机器上 **大约需要 {time}**。",
    "a GPU recipe: about {time} here": "GPU 配方：这里约需 {time}",
    "about {time} here": "这里约需 {time}",
    "loss {loss}": "损失 {loss}",
    "**Your own settings.** They match no preset now; the estimate above is for them. Pick a "
    "preset to start again from one.":
        "**你自己的设置。** 它们现在不符合任何预设；上面的估计是按它们算的。选一个预设即可从它重新开始。",
    "On Tiny Shakespeare it reaches a validation loss of about **{loss}**. {meaning}":
        "在 Tiny Shakespeare 上它的验证损失能达到约 **{loss}**。{meaning}",
    "What its text looks like there:": "那时它写出的文字是这样的：",
    "**Evaluating** the model at step {step}: {done} / {total} batches":
        "**正在评估** 第 {step} 步的模型：{done} / {total} 个批次",
    "about {left} left": "约剩 {left}",
    "About {time} in all.": "总共约需 {time}。",
    "**Waiting for a turn:** {ahead} jobs ahead of yours. Runs here take turns of a fraction of a "
    "second, so yours starts soon.":
        "**等待轮到你**：前面还有 {ahead} 个任务。这里的训练轮流进行，每次不到一秒，很快就到你。",
    "**Waiting for a turn:** another visitor's job is computing; yours goes on in a moment.":
        "**等待轮到你**：另一位访客的任务正在计算，你的马上继续。",
    "**Waiting for a turn:** 1 job ahead of yours. Runs here take turns of a fraction of a "
    "second, so yours starts soon.":
        "**等待轮到你**：前面还有 1 个任务。这里的训练轮流进行，每次不到一秒，很快就到你。",
    "**Waiting for a turn:** {runs} runs share this machine, taking turns; yours goes on in a "
    "moment.":
        "**等待轮到你**：有 {runs} 个训练轮流共用这台机器，你的马上继续。",
    "**Stopped** before it began: it was still waiting for its turn. Nothing changed; press "
    "Start to try again.":
        "**已停止**，还没开始：它仍在等待轮到自己。什么都没有改变；按开始可以再试一次。",
    "This run writes no samples while it trains (sample length, sample_tokens, is 0 under "
    "Advanced). The Generate tab writes with the model once it is trained.":
        "这次运行在训练时不写样本（“高级”里的样本长度 sample_tokens 为 0）。训练好之后，可以在“生成”"
        "标签页用模型写作。",
    "Recent training loss {loss} at step {step}.": "第 {step} 步时最近的训练损失为 {loss}。",
    "Recent training loss {loss} at step {step} (no evaluation since step {eval_step}).":
        "第 {step} 步时最近的训练损失为 {loss}（第 {eval_step} 步之后没有再评估）。",
    # --- coming back (server.reattach) and new sessions (server.guard) ---------------------------
    "**Welcome back.** The server restarted since your last visit; your model was saved before "
    "it did and is loaded again: {params} parameters, trained {steps} steps. Generate with it, or "
    "download it below; tick 'Continue training' to train it further. (The Compare tab's runs did "
    "not outlast the restart.)":
        "**欢迎回来。** 自你上次访问以来服务器重启过；重启前你的模型已经保存，现在重新载入了："
        "{params} 个参数，训练了 {steps} 步。可以用它生成文本，或在下方下载；勾选“继续训练当前模型”"
        "可以接着训练。（“比较运行”标签页里的运行没能保留到重启之后。）",
    "**Welcome back.** Your model is still here: {params} parameters, trained {steps} steps. "
    "Generate with it, look at its attention, or download it below; tick 'Continue training' to "
    "train it further. Your runs are on the Compare tab.":
        "**欢迎回来。** 你的模型还在：{params} 个参数，训练了 {steps} 步。可以用它生成文本、查看"
        "注意力，或在下方下载；勾选“继续训练当前模型”可以接着训练。你的运行都在“比较运行”标签页。",
    "**Welcome back.** This session is training in another tab of this browser; its model shows "
    "here once that run has ended and this page is reloaded.":
        "**欢迎回来。** 这个会话正在本浏览器的另一个标签页里训练；那次运行结束后重新载入本页，"
        "模型就会显示在这里。",
    "This network opened {n} new sessions of this page in the last minute, as many as it may; "
    "wait a minute, then reload the page.":
        "你所在的网络在过去一分钟内打开了 {n} 个本页面的新会话，已达上限；请等一分钟再重新载入页面。",
    "This server holds as many sessions as it can, and every one of them is in use; try again in "
    "a few minutes.":
        "本服务器容纳的会话已满，而且每一个都在使用中；请几分钟后再试。",
}

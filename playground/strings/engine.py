"""What the engine says: settings (config), training (train), devices, the model, generation
(see playground.strings)."""

EN: dict[str, str] = {
    # --- settings (playground.config) ---------------------------------------------------------
    "cfg_not_whole_number": "{name} must be a whole number, got {value}.",
    "cfg_not_number": "{name} must be a number, got {value}.",
    "cfg_out_of_range": "{name} must be between {low} and {high}, got {value}.",
    "cfg_not_a_choice": "{name} must be one of {choices}; got {value}.",
    "cfg_heads_divide": "The width n_embd={n_embd} must divide evenly among the {n_head} "
                        "attention heads (each head gets n_embd / n_head numbers). Try "
                        "n_embd={suggestion} or a number of heads that divides {n_embd}.",
    "cfg_rope_odd_head": "RoPE rotates the numbers of each head in pairs, so the head size "
                         "(n_embd / n_head = {head_size}) must be even. Change n_embd or n_head, "
                         "or pick another kind of position encoding.",
    "cfg_min_lr_above_lr": "min_lr ({min_lr}) is where the learning rate ends, so it cannot be "
                           "above the peak lr ({lr}).",
    "cfg_batch_split": "batch_size={batch_size} must split evenly into grad_accum={grad_accum} "
                       "micro-batches.",
    "cfg_unknown_settings": "Unknown {config} settings: {names}.",
    # --- training (playground.train) ----------------------------------------------------------
    "train_part_training": "training",
    "train_part_validation": "validation",
    "train_val_fraction": "val_fraction must be between 0 and 1, got {value}.",
    "train_text_too_short": "The {part} part of the text is {n} tokens long, but each training "
                            "window needs block_size + 1 = {needed} tokens. Use a longer text, a "
                            "smaller block_size, or a different val_fraction.",
    "train_chars_per_token": "chars_per_token must be positive, got {value}.",
    "train_token_range": "The {part} tokens run from {low} to {high}, but the model knows only "
                         "{vocab_size} tokens (0 to {last}). Build the model with the "
                         "tokenizer's vocab_size.",
    "train_end_stopped": "Stopped at step {step} as asked.",
    "train_end_finished": "Finished all {max_steps} steps.",
    "train_end_paused": "Paused at step {step} of {max_steps}; run() continues.",
    "train_end_nan": "The loss became {loss} at step {step}, so training stopped there. The "
                     "weights are those from before that step. A learning rate that is too high "
                     "is the usual cause: try lr={suggested_lr} (this step used {lr}).",
    "train_end_nan_no_clip": "The loss became {loss} at step {step}, so training stopped there. "
                             "The weights are those from before that step. A learning rate that "
                             "is too high is the usual cause: try lr={suggested_lr} (this step "
                             "used {lr}), or turn on grad_clip=1.0.",
    "train_end_oom": "Ran out of memory at step {step} on {device}. Try a smaller batch_size "
                     "(now {batch_size}), more grad_accum micro-batches, a shorter block_size "
                     "(now {block_size}) or a smaller model. The weights from step {kept_step} "
                     "are kept.",
    "train_end_failed": "Training failed at step {step}: {error_type}: {error}. The weights "
                        "from step {kept_step} are kept.",
    "train_end_failed_sentence": "Training failed at step {step}: {error_type}: {error} The "
                                 "weights from step {kept_step} are kept.",
    # --- devices (playground.runtime.device) ----------------------------------------------------------
    "device_unknown": "Unknown device {device}. Choose auto, cpu, cuda or mps.",
    "device_no_cuda": "CUDA was asked for, but this machine has no usable NVIDIA GPU (or this "
                      "PyTorch build has no CUDA support). Choose device auto or cpu.",
    "device_gpu_index_one": "GPU number {index} was asked for, but this machine has {count} GPU "
                            "(numbered from 0). Choose cuda or auto.",
    "device_gpu_index_many": "GPU number {index} was asked for, but this machine has {count} "
                             "GPUs (numbered from 0). Choose cuda or auto.",
    "device_no_mps": "Apple's MPS was asked for, but it is not available here (it needs a Mac "
                     "with Apple silicon and a PyTorch build with MPS). Choose device auto or "
                     "cpu.",
    "device_no_bf16": "This GPU cannot compute in bfloat16. Choose dtype auto or float32.",
    "device_describe_gpu": "GPU: {name} ({memory} GiB)",
    "device_describe_mps": "Apple GPU (MPS)",
    "device_describe_cpu_bf16_fast": "CPU ({threads} threads, bf16 fast: yes)",
    "device_describe_cpu_bf16_slow": "CPU ({threads} threads, bf16 fast: no)",
    # --- the model, generation, attention -----------------------------------------------------
    "model_input_too_long": "This model reads at most {block_size} tokens at once (block_size); "
                            "it was given {n}. Crop the input to the last {block_size} tokens.",
    "model_kv_cache_full": "The KV cache holds {size} tokens; it cannot take {n} more after "
                           "{length}. Start a new cache (generation slides its window for this).",
    "gen_negative_max_new_tokens": "max_new_tokens cannot be negative.",
    "attn_empty_text": "Type some text to look at: the attention map needs at least one token.",
}

ZH_CN: dict[str, str] = {
    # --- settings (playground.config) ---------------------------------------------------------
    "cfg_not_whole_number": "{name} 必须是整数，收到的是 {value}。",
    "cfg_not_number": "{name} 必须是一个数，收到的是 {value}。",
    "cfg_out_of_range": "{name} 必须在 {low} 到 {high} 之间，收到的是 {value}。",
    "cfg_not_a_choice": "{name} 必须是 {choices} 之一；收到的是 {value}。",
    "cfg_heads_divide": "宽度 n_embd={n_embd} 必须能平均分给 {n_head} 个注意力头（每个头分到 "
                        "n_embd / n_head 个数）。试试 n_embd={suggestion}，或者换一个能整除 "
                        "{n_embd} 的头数。",
    "cfg_rope_odd_head": "RoPE 把每个头里的数两两配对旋转，所以头的大小（n_embd / n_head = "
                         "{head_size}）必须是偶数。请修改 n_embd 或 n_head，或者换一种位置编码。",
    "cfg_min_lr_above_lr": "min_lr（{min_lr}）是学习率最后降到的值，所以不能高于峰值 lr（{lr}）。",
    "cfg_batch_split": "batch_size={batch_size} 必须能平均分成 grad_accum={grad_accum} 个小批次。",
    "cfg_unknown_settings": "未知的 {config} 设置：{names}。",
    # --- training (playground.train) ----------------------------------------------------------
    "train_part_training": "训练",
    "train_part_validation": "验证",
    "train_val_fraction": "val_fraction 必须在 0 到 1 之间，收到的是 {value}。",
    "train_text_too_short": "文本的{part}部分只有 {n} 个词元，但每个训练窗口需要 block_size + 1 = "
                            "{needed} 个词元。请换一段更长的文本、调小 block_size，或者修改 "
                            "val_fraction。",
    "train_chars_per_token": "chars_per_token 必须是正数，收到的是 {value}。",
    "train_token_range": "{part}数据的词元编号从 {low} 到 {high}，但模型只认识 {vocab_size} 个词元"
                         "（0 到 {last}）。请用分词器的 vocab_size 来构建模型。",
    "train_end_stopped": "已按要求在第 {step} 步停止。",
    "train_end_finished": "已完成全部 {max_steps} 步。",
    "train_end_paused": "在第 {step} 步暂停（共 {max_steps} 步）；再次调用 run() 会继续。",
    "train_end_nan": "第 {step} 步的损失变成了 {loss}，训练就此停止。权重保持该步之前的值。"
                     "最常见的原因是学习率太高：试试 lr={suggested_lr}（这一步用的是 {lr}）。",
    "train_end_nan_no_clip": "第 {step} 步的损失变成了 {loss}，训练就此停止。权重保持该步之前的值。"
                             "最常见的原因是学习率太高：试试 lr={suggested_lr}（这一步用的是 "
                             "{lr}），或者打开梯度裁剪 grad_clip=1.0。",
    "train_end_oom": "第 {step} 步时 {device} 内存不足。试试更小的 batch_size（现在是 "
                     "{batch_size}）、更多的 grad_accum 小批次、更短的 block_size（现在是 "
                     "{block_size}），或者更小的模型。第 {kept_step} 步的权重已保留。",
    "train_end_failed": "训练在第 {step} 步失败：{error_type}: {error}。第 {kept_step} 步的权重已保留。",
    "train_end_failed_sentence": "训练在第 {step} 步失败：{error_type}: {error} 第 {kept_step} 步的权重已保留。",
    # --- devices (playground.runtime.device) ----------------------------------------------------------
    "device_unknown": "未知的设备 {device}。请选择 auto、cpu、cuda 或 mps。",
    "device_no_cuda": "要求使用 CUDA，但这台机器没有可用的 NVIDIA GPU（或者这个 PyTorch 版本不支持 "
                      "CUDA）。请把 device 设为 auto 或 cpu。",
    "device_gpu_index_one": "要求使用第 {index} 号 GPU，但这台机器只有 {count} 块 GPU（从 0 开始编号）。"
                            "请选择 cuda 或 auto。",
    "device_gpu_index_many": "要求使用第 {index} 号 GPU，但这台机器只有 {count} 块 GPU（从 0 开始编号）。"
                             "请选择 cuda 或 auto。",
    "device_no_mps": "要求使用 Apple 的 MPS，但这里不可用（需要 Apple 芯片的 Mac 和支持 MPS 的 "
                     "PyTorch 版本）。请把 device 设为 auto 或 cpu。",
    "device_no_bf16": "这块 GPU 不能用 bfloat16 计算。请把 dtype 设为 auto 或 float32。",
    "device_describe_gpu": "GPU：{name}（{memory} GiB）",
    "device_describe_mps": "Apple GPU（MPS）",
    "device_describe_cpu_bf16_fast": "CPU（{threads} 个线程，bf16 较快：是）",
    "device_describe_cpu_bf16_slow": "CPU（{threads} 个线程，bf16 较快：否）",
    # --- the model, generation, attention -----------------------------------------------------
    "model_input_too_long": "这个模型一次最多读入 {block_size} 个词元（block_size），但收到了 {n} 个。"
                            "请把输入截成最后 {block_size} 个词元。",
    "model_kv_cache_full": "KV 缓存能放 {size} 个词元；已有 {length} 个，放不下再来的 {n} 个。"
                           "请新建一个缓存（生成时会为此滑动窗口）。",
    "gen_negative_max_new_tokens": "max_new_tokens 不能是负数。",
    "attn_empty_text": "请输入一些要查看的文本：注意力图至少需要一个词元。",
}

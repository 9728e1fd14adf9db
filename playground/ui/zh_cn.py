"""The page's own messages in Simplified Chinese, keyed by their English text.

What the tabs' handlers write (status lines, summaries, progress, their errors), as
``playground.i18n.zh_cn`` holds the core's; ``playground.ui`` adds these to the translator
when it is imported. Page labels, translated in the browser, are in ``labels.py``.

Markdown: a "**" that closes right after Chinese punctuation needs a space (or punctuation)
after it, or it stays literal; hence "**注意：** {note}".
"""

ZH_CN: dict[str, str] = {
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

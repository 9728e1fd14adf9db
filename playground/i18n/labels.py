"""The page's labels, by id, each in English and Simplified Chinese side by side.

Labels, explanations and static text of the page travel to the browser once, as
``gr.I18n(**gradio_i18n_dict())``, and ``lang.tr("label_n_layer")`` stands in for a label:
the page shows it in the visitor's language. Entries are keyed by id rather than by their
English (as the server's messages are, ``playground.i18n.zh_cn``) because Gradio's browser
translator needs ids: letters, digits and underscores only, never dots or spaces (it would
read a dot as nesting), and placeholders are plain ``{name}``. What the server writes
(status lines, errors, coach notes) is no label: it is written in English where it is said
(``playground.i18n.msg``).

A setting's label and help (``label_<field>``, ``info_<field>``) are written once, on its
config field (``playground.config.setting_text``), and added here. This module imports no
Gradio.

>>> EN["label_n_layer"], ZH_CN["label_n_layer"]
('layers (n_layer)', '层数 (n_layer)')
>>> EN["tab_corpus"], ZH_CN["tab_corpus"]
('1 · Corpus', '1 · 语料')
"""

from __future__ import annotations

from playground.config import SETTING_FIELDS, setting_text

# {id: (English, Chinese)}
LABELS: dict[str, tuple[str, str]] = {
    # --- the page -----------------------------------------------------------------------------
    "tab_corpus": ("1 · Corpus", "1 · 语料"),
    "tab_tokenizer": ("2 · Tokenizer", "2 · 分词器"),
    "tab_train": ("3 · Model & training", "3 · 模型与训练"),
    "tab_generate": ("4 · Generate", "4 · 生成"),
    "tab_attention": ("5 · Attention", "5 · 注意力"),
    "tab_inside": ("5b · Inside the model", "5b · 模型内部"),
    "tab_compare": ("6 · Compare runs", "6 · 比较运行"),
    "tab_export": ("7 · Export & share", "7 · 导出与分享"),
    "tab_board": ("8 · Class board", "8 · 班级看板"),
    # --- corpus -------------------------------------------------------------------------------
    "corpus_intro": ("Choose the text the model will learn from. Tiny Shakespeare (1 MB of "
                     "plays) is ready; your own text works too.",
                     "选择模型要学习的文本。Tiny Shakespeare（1 MB 的莎士比亚剧本）已经准备好；"
                     "也可以用你自己的文本。"),
    "corpus_source": ("Text to learn from", "学习用的文本"),
    "corpus_source_info": ("Tiny Shakespeare is ready to use; or upload your own files, or paste "
                           "text.",
                           "Tiny Shakespeare 可以直接使用；也可以上传自己的文件或粘贴文本。"),
    "corpus_paste_label": ("Paste your text", "粘贴你的文本"),
    "corpus_paste_info": ("Any language works; a few thousand characters or more trains best.",
                          "任何语言都可以；几千个字符以上训练效果最好。"),
    "corpus_paste_placeholder": ("Paste text here, then press 'Use pasted text'.",
                                 "在这里粘贴文本，然后点击“使用粘贴的文本”。"),
    "corpus_paste_button": ("Use pasted text", "使用粘贴的文本"),
    "corpus_task": ("Or a toy task", "或者一个小任务"),
    "corpus_task_info": ("Problems with one right answer whose attention you can predict: copy, "
                         "reverse, sort, add, brackets, lookup.",
                         "只有一个正确答案、能预先猜到注意力模式的题目：复制、倒序、排序、加法、"
                         "括号、查表。"),
    # --- tokenizer ----------------------------------------------------------------------------
    "tokenizer_intro": ("A tokenizer cuts text into the pieces (tokens) the model reads and "
                        "writes. Train one on your corpus.",
                        "分词器把文本切成模型读写的小块（词元，token）。在你的语料上训练一个。"),
    "tokenizer_kind": ("Kind of tokenizer", "分词器类型"),
    "tokenizer_kind_info": ("Characters are simplest; BPE makes tokens of common letter groups, "
                            "so the model sees more text at once.",
                            "字符级最简单；BPE 把常见的字母组合变成词元，模型一次能看到更多文本。"),
    "vocab_size": ("BPE vocabulary size", "BPE 词表大小"),
    "vocab_size_info": ("How many different tokens BPE learns (only for BPE).",
                        "BPE 学习多少种不同的词元（仅用于 BPE）。"),
    "tokenizer_train_button": ("Train tokenizer", "训练分词器"),
    "tokenizer_none": ("*No tokenizer yet: press 'Train tokenizer'.*",
                       "*还没有分词器：请点击“训练分词器”。*"),
    "tokenizer_tokens": ("The start of the corpus, cut into tokens (colours alternate)",
                         "语料开头切分成的词元（颜色交替显示）"),
    "merges_title": ("How BPE builds its tokens, merge by merge", "BPE 如何一步步合并出词元"),
    "merges_sample": ("Sample sentence", "示例句子"),
    "merges_step": ("Merges applied", "已应用的合并次数"),
    # --- model and training settings ----------------------------------------------------------
    "train_intro": ("Pick a preset and press Start training. The loss curve shows the model "
                    "learning (lower is better), the samples what it writes; every setting is "
                    "under Advanced, further down.",
                    "选择一个预设，然后点击“开始训练”。损失曲线显示模型的学习过程（越低越好），"
                    "样本显示它写出的文字；所有设置都在下方的“高级”里。"),
    "preset": ("Preset", "预设"),
    "preset_info": ("Each says about how long it takes on this machine and the validation loss "
                    "it reaches; it fills in every setting under Advanced.",
                    "每个预设都写明在这台机器上大约需要多久，以及它能达到的验证损失；"
                    "它会填好“高级”里的所有设置。"),
    "advanced": ("Advanced: every setting", "高级：全部设置"),
    "advanced_intro": ("Every setting of the model and of its training, grouped. A preset fills "
                       "them all in; changing one makes the settings your own (the preset choice "
                       "clears). Each says in plain words what it does, with its name in the "
                       "code in brackets.",
                       "模型及其训练的每一项设置，分组列出。预设会把它们全部填好；改动任何一项，"
                       "设置就成了你自己的（预设的选择会清空）。每一项都用平实的话说明它做什么，"
                       "括号里是它在代码中的名字。"),
    "section_shape": ("Model shape", "模型形状"),
    "section_variants": ("Architecture variants", "架构变体"),
    "section_optimisation": ("Optimisation", "优化"),
    "section_evaluation": ("Evaluation, data split, device", "评估、数据划分与设备"),
    # label_<field> and info_<field> of every setting come from its field in playground/config.py
    # --- training -----------------------------------------------------------------------------
    "continue_training": ("Continue training the current model", "继续训练当前模型"),
    "continue_training_info": ("Keep training the model you have (trained here or uploaded); its "
                               "shape settings stay as they are. Raise max_steps to go on.",
                               "继续训练你已有的模型（在这里训练的或上传的）；"
                               "它的形状设置保持不变。提高 max_steps 以继续。"),
    "start_button": ("Start training", "开始训练"),
    "stop_button": ("Stop", "停止"),
    "download_button": ("Download the trained model (.zip)", "下载训练好的模型（.zip）"),
    "upload_bundle": ("Upload a model bundle (.zip) saved by this app: up to 5 MB here (a model "
                      "of about 400,000 parameters with its optimizer state; bigger ones load "
                      "with the command line)",
                      "上传本应用保存的模型包（.zip）：这里最多 5 MB（约 40 "
                      "万参数的模型及其优化器状态；更大的请用命令行加载）"),
    "not_trained": ("*Not trained yet.* Until you train a model of your own, Generate, Attention "
                    "and Inside use a ready-made one that comes with the playground: the quick "
                    "preset, trained on Tiny Shakespeare. Press Start training to train your own.",
                    "*还没有训练。* 在你训练出自己的模型之前，“生成”“注意力”“模型内部”使用 "
                    "Playground 自带的一个现成模型：用 quick 预设在 Tiny Shakespeare 上训练而成。"
                    "按“开始训练”训练你自己的模型。"),
    "loss_plot": ("Loss (lower is better)", "损失（越低越好）"),
    "x_axis": ("x axis", "横轴"),
    "choice_x_step": ("steps", "步数"),
    "choice_x_tokens": ("tokens seen", "已见词元数"),
    "choice_x_elapsed": ("seconds", "秒"),
    "choice_source_shakespeare": ("Tiny Shakespeare", "Tiny Shakespeare（莎士比亚小语料）"),
    "choice_source_upload": ("Upload files", "上传文件"),
    "choice_source_paste": ("Paste text", "粘贴文本"),
    "choice_kind_char": ("Characters: one token per character", "字符：每个字符一个词元"),
    "choice_kind_bpe": ("BPE: frequent pieces of words become tokens", "BPE：常见的词片段成为词元"),
    "show_references": ("Show reference lines", "显示参考线"),
    "show_references_info": ("What good looks like: guessing letters at random, knowing only how "
                             "often each letter occurs, and nanoGPT's big GPU model on Tiny "
                             "Shakespeare.",
                             "什么算好：随机猜字符、只知道每个字符出现的频率，以及 nanoGPT 在 "
                             "GPU 上训练的大模型在 Tiny Shakespeare 上的结果。"),
    "samples_label": ("What the model writes, at each evaluation (the latest first)",
                      "模型写出的文字，每次评估一段（最新的在最前面）"),
    "samples_info": ("From noise to words as it learns.", "随着学习，从乱码到词语。"),
    # --- generation ---------------------------------------------------------------------------
    "generate_intro": ("The trained model continues your prompt, one token at a time. Each token "
                       "is drawn at random from the model's prediction; the controls shape that "
                       "draw.",
                       "训练好的模型一次一个词元地续写你的提示。"
                       "每个词元都是从模型的预测中随机抽取的；下面的控件决定怎么抽。"),
    "prompt": ("Prompt", "提示"),
    "prompt_info": ("The text the model continues (it may be empty). Enter writes; Shift+Enter "
                    "starts a new line.",
                    "模型要续写的文本（可以为空）。按 Enter 生成；Shift+Enter 换行。"),
    "example_prompts": ("Or try one of these (click to write)", "或者试试这些（点一下就开始写）"),
    "max_new_tokens": ("Maximum new tokens", "最多生成的词元数"),
    "max_new_tokens_info": ("How many tokens to write.", "要写多少个词元。"),
    "temperature": ("Temperature", "温度"),
    "temperature_info": ("Lower is safer and more repetitive; 0 always takes the likeliest "
                         "token; higher is wilder.",
                         "越低越稳妥、越重复；0 总是选最可能的词元；越高越天马行空。"),
    "top_k": ("Top-k", "Top-k"),
    "limit_top_k": ("Limit to the k likeliest tokens (top-k)", "只在最可能的 k 个词元中抽取 (top-k)"),
    "limit_top_k_info": ("Off: any token can be drawn.", "关闭：任何词元都可能被抽到。"),
    "top_k_info": ("Draw only among the k likeliest tokens.", "只在最可能的 k 个词元中抽取。"),
    "top_p": ("Top-p", "Top-p"),
    "limit_top_p": ("Limit to the likeliest tokens that hold most of the probability (top-p)",
                    "只在占大部分概率的最可能词元中抽取 (top-p)"),
    "limit_top_p_info": ("Off: any token can be drawn.", "关闭：任何词元都可能被抽到。"),
    "top_p_info": ("Draw only among the likeliest tokens that together reach this probability.",
                   "只在总概率达到这个值的最可能词元中抽取。"),
    "sample_seed": ("Seed", "随机种子"),
    "fixed_seed": ("Same text each time (fixed seed)", "每次写出同样的文本（固定随机种子）"),
    "fixed_seed_info": ("Off: a new seed each time; the seed a text used is shown under it.",
                        "关闭：每次用新的随机种子；每段文本用的种子显示在它下方。"),
    "sample_seed_info": ("The same seed, prompt and settings write the same text again.",
                         "相同的种子、提示和设置会再次写出相同的文本。"),
    "generate_button": ("Generate", "生成"),
    "copy_text": ("Copy text", "复制文本"),
    "next_token_chart": ("The next token: the model's ten favourites",
                         "下一个词元：模型最看好的十个"),
    "generated_text": ("Generated text (your prompt, then the model's words)",
                       "生成的文本（先是你的提示，然后是模型写的）"),
    "memo_title": ("Memorisation check", "背诵检查"),
    "memo_min_chars": ("Shortest copied span (characters)", "最短的复制片段（字符数）"),
    "memo_min_chars_info": ("Highlight spans of at least this many characters that occur word "
                            "for word in the training text.",
                            "高亮至少这么长、且与训练文本逐字相同的片段。"),
    # --- attention ----------------------------------------------------------------------------
    "attention_intro": ("Attention is how a token gathers information from the tokens before it. "
                        "Here you see, for a text, how strongly each token (row) attends to each "
                        "earlier token (column).",
                        "注意力是一个词元从它之前的词元收集信息的方式。这里可以看到，对一段文本，"
                        "每个词元（行）对每个更早的词元（列）的关注有多强。"),
    "attention_text": ("Text to look at", "要查看的文本"),
    "layer": ("Layer", "层"),
    "layer_info": ("Which block (0 is the first).", "哪一个块（0 是第一个）。"),
    "head": ("Head", "头"),
    "head_info": ("Which attention head of that layer.", "该层的哪一个注意力头。"),
    "attention_button": ("Show attention", "显示注意力"),
    "attention_heatmap": ("One head: row = token looking, column = token looked at",
                          "单个头：行 = 发出关注的词元，列 = 被关注的词元"),
    "attention_grid": ("Every head of the layer (one colour scale)", "该层的所有头（同一色标）"),
    # --- inside the model (inside_tab) and training health (health_panel) -----------------------
    "inside_intro": ("Look inside a model you trained: its parts, one forward pass step by step, "
                     "where it is surprised, and how it arranges its tokens. The diagram follows "
                     "the training tab's settings even before anything is trained; the other "
                     "views need a trained model (or an uploaded bundle).",
                     "看看你训练的模型内部：它的各个部分、一步一步的一次前向计算、"
                     "它在哪里感到意外，以及它怎样安排词元。结构图跟随训练标签页的设置，"
                     "训练之前就能看；其他视图需要一个训练好的模型（或上传的模型包）。"),
    "inside_diagram_title": ("The model, part by part", "模型，一部分一部分地看"),
    "train_diagram_intro": ("What these settings build, redrawn as you change them, before "
                            "anything is trained: shapes and parameters of every part. Click (or "
                            "hover over) a part to read what it does and why. The 'Inside the "
                            "model' tab shows the same model at work.",
                            "这些设置会构建出的模型，随设置变化重新绘制，训练之前就能看："
                            "每个部分的形状和参数个数。点击（或悬停在）某个部分上，看看它做什么、"
                            "为什么。“模型内部”标签页展示这个模型如何工作。"),
    "inside_diagram_intro": ("What the settings on the training tab build, from the token ids at "
                             "the top to the next-token probabilities at the bottom. Click (or "
                             "hover over) a part to read what it does and why.",
                             "训练标签页上的设置会构建出什么："
                             "从顶部的词元编号到底部的下一个词元的概率。点击（或悬停在）"
                             "某个部分上，看看它做什么、为什么。"),
    "inside_forward_title": ("One forward pass, step by step", "一次前向计算，一步一步"),
    "inside_forward_intro": ("Give the model a prompt and follow one token through it: its "
                             "vector, where it looks in each layer, and the **logit lens**: the "
                             "model's next-token guesses read out after each block, as if the "
                             "model ended there. The last row is what the model really predicts.",
                             "给模型一段提示，跟着一个词元穿过模型：它的向量、"
                             "它在每一层看向哪里，以及 **logit lens**："
                             "在每一块之后读出模型对下一个词元的猜测，就好像模型在那里结束一样。"
                             "最后一行才是模型真正的预测。"),
    "inside_prompt": ("Prompt", "提示"),
    "inside_prompt_info": ("At most 64 tokens. Enter runs the model.",
                           "最多 64 个词元。按回车运行模型。"),
    "inside_forward_button": ("Run the model on it", "用它运行模型"),
    "inside_step_intro": ("**Step by step.** Train the model 1, 10 or 100 more steps, then see "
                          "what changed: the views below run again on the prompt, and the model "
                          "writes from it (always with the same seed, so only the weights differ "
                          "between two presses). Without a model, the first press starts one "
                          "with the training tab's settings; after a run or an upload it goes on "
                          "exactly where that one stopped, as 'Continue training' does.",
                          "**一步一步地训练。** 让模型再训练 1、10 或 100 步，"
                          "然后看看有什么变化：下面的视图会在提示上重新运行，"
                          "模型也会接着提示写下去（种子总是相同，所以两次按下之间只有权重不同）。"
                          "还没有模型时，第一次按下会用训练标签页的设置新建一个；训练或上传之后，"
                          "它会像“继续训练当前模型”一样，从上次停下的地方接着训练。"),
    "inside_step_1": ("Step ×1", "训练 ×1 步"),
    "inside_step_10": ("Step ×10", "训练 ×10 步"),
    "inside_step_100": ("Step ×100", "训练 ×100 步"),
    "inside_step_sample": ("What it writes now", "它现在写出的文字"),
    "inside_step_sample_info": ("The prompt, then the model's words after the last press.",
                                "先是提示，然后是模型在最近一次按下之后写出的文字。"),
    "inside_position": ("Position", "位置"),
    "inside_position_info": ("Which token to follow (0 is the first); the model predicts the "
                             "token after it.",
                             "跟随哪个词元（0 是第一个）；模型预测它后面的那个词元。"),
    "inside_vectors": ("The token's vector", "词元的向量"),
    "inside_attention": ("Where it looks", "它看向哪里"),
    "inside_lens": ("The logit lens", "logit lens"),
    "inside_sampling_intro": ("**Temperature, top-k, top-p.** Sampling does not always take the "
                              "likeliest token: it draws from the distribution, reshaped by "
                              "these three. Move them: the distribution changes at once, from "
                              "the model's output kept above (the model does not run again).",
                              "**温度、top-k、top-p。** 采样不总是选最可能的词元："
                              "它从分布中抽取，而分布会被这三个设置改变形状。拖动它们："
                              "分布会立刻变化，用的是上面保存的模型输出（模型不会再运行一次）。"),
    "inside_top_k_info": ("Keep only the k likeliest tokens (0: off).",
                          "只保留最可能的 k 个词元（0：关闭）。"),
    "inside_top_p_info": ("Keep the likeliest tokens that hold this much probability (1: off).",
                          "保留概率合计达到这个值的最可能的词元（1：关闭）。"),
    "inside_distribution": ("The next token: the model's chances and what sampling draws from",
                            "下一个词元：模型给的概率，以及采样实际抽取的分布"),
    "inside_head_title": ("One head's arithmetic, step by step", "一个注意力头的算术，一步一步"),
    "inside_head_intro": ("Pick a layer and a head; the position is the forward pass's above. "
                          "Next walks through what that head computes there, with the model's "
                          "own numbers: query, keys, dot products, √d_k, mask, softmax, values, "
                          "and what it adds to the residual stream.",
                          "选一层和一个头；位置就是上面前向计算里选的那个。点“下一步”，"
                          "用模型自己的数一步步看这个头在那里算了什么：查询、键、点积、√d_k、"
                          "掩码、softmax、值，以及它加到残差流里的东西。"),
    "inside_head_prev": ("◀ Previous", "◀ 上一步"),
    "inside_head_next": ("Next ▶", "下一步 ▶"),
    "inside_timeline_title": ("What the model learned over time", "模型随时间学到了什么"),
    "inside_timeline_intro": ("At every evaluation the run writes a sample from the same start "
                              "with the same seed, so the rows differ only by what the model had "
                              "learned by then: read them from the top, next to the validation "
                              "loss each one was written at.",
                              "每次评估时，运行都会从同样的开头、用同样的种子写一段样本，"
                              "所以各行之间只差在模型那时学到了多少：从上往下读，"
                              "旁边是写下每一行时的验证损失。"),
    "inside_surprise_title": ("Where the model is surprised", "模型在哪里感到意外"),
    "inside_surprise_intro": ("Each token coloured by the model's surprise at it: the loss −log "
                              "p of the token that really came next. Green: it was sure; red: it "
                              "expected something else. Hover over a token for its loss and the "
                              "model's own top guess. The text starts as a piece of the "
                              "validation text, which the model never trained on; its mean "
                              "surprise is the validation loss.",
                              "每个词元按模型对它的意外程度着色：即真正出现的下一个词元的损失 "
                              "−log p。绿色：模型很有把握；红色：它预期的是别的。"
                              "把鼠标悬停在词元上，可以看到它的损失和模型自己最可能的猜测。"
                              "文本一开始是一段验证文本，模型从未在上面训练过；"
                              "它的平均意外程度就是验证损失。"),
    "inside_surprise_text": ("Text", "文本"),
    "inside_surprise_button": ("Colour the text", "给文本着色"),
    "inside_embedding_title": ("The embedding map", "嵌入地图"),
    "inside_embedding_intro": ("Every token's embedding vector, projected to two dimensions "
                               "(PCA): tokens the model treats alike land close together. At "
                               "character level, vowels, capitals and punctuation often gather "
                               "in groups.",
                               "每个词元的嵌入向量，投影到两个维度（PCA）："
                               "模型以相近方式对待的词元会落在一起。在字符级别上，元音、"
                               "大写字母和标点常常各自聚成一群。"),
    "inside_embedding_button": ("Draw the map", "画出地图"),
    "inside_embedding": ("Token embeddings (PCA)", "词元嵌入（PCA）"),
    "health_title": ("How training is going", "训练进展如何"),
    "health_intro": ("The gradient norm of each step (red marks: steps whose gradients were "
                     "clipped to grad_clip), the learning rate as planned by the settings and as "
                     "the run followed it, and the tokens per second. A spike in the gradient "
                     "norm often comes just before the loss jumps.",
                     "每一步的梯度范数（红色标记：梯度被裁剪到 grad_clip 的步），"
                     "设置中计划的学习率和运行实际使用的学习率，以及每秒处理的词元数。"
                     "梯度范数的尖峰常常出现在损失跳升之前。"),
    "health_plot": ("Training health", "训练状况"),
    "history_csv_button": ("Download the loss history (.csv)", "下载损失历史（.csv）"),
    # --- comparing runs -----------------------------------------------------------------------
    "compare_intro": ("Every run of this session is kept. Select runs to overlay their "
                      "validation curves and see which settings differ.",
                      "这个会话中的每次运行都会保留。选择几次运行，叠加它们的验证曲线，"
                      "并查看哪些设置不同。"),
    "compare_runs": ("Runs to compare", "要比较的运行"),
    "compare_plot": ("Validation loss of the selected runs", "所选运行的验证损失"),
    "one_change_title": ("Same run, one change", "同一运行，只改一处"),
    "one_change_setting": ("Setting to change", "要修改的设置"),
    "one_change_value": ("New value", "新的值"),
    "one_change_button": ("Train the same run with this one change", "只改这一处，重新训练同一运行"),
    "one_change_info": ("Same seed, same data, same everything else: the difference between the "
                        "curves is this setting's effect.",
                        "相同的种子、相同的数据、其余一切相同：曲线之间的差别就是这个设置的效果。"),
    # --- export and sharing -------------------------------------------------------------------
    "export_script_info": ("One Python file with the model and a sampling loop; it needs only "
                           "torch and safetensors. Run: python generate_standalone.py model.zip "
                           "--prompt \"ROMEO:\"",
                           "一个包含模型和采样循环的 Python 文件；只需要 torch 和 safetensors。"
                           "运行：python generate_standalone.py model.zip --prompt \"ROMEO:\""),
    "hub_repo": ("Hugging Face repository (user/name)", "Hugging Face 仓库（用户名/名称）"),
    "hub_token": ("Hugging Face token (write access)", "Hugging Face 令牌（需要写权限）"),
    "hub_token_info": ("Used for this upload only, never stored.", "只用于这次上传，不会保存。"),
    "hub_login_info": ("Sign in with Hugging Face to push the model to your own account: this "
                       "Space then writes to your repositories for you, and no token is typed "
                       "here.",
                       "用 Hugging Face 登录（Sign in with Hugging Face），"
                       "即可把模型推送到你自己的账号：这个 Space 会替你写入你的仓库，"
                       "这里不需要输入令牌。"),
    "hub_private": ("Private repository", "私有仓库"),
    "hub_push_button": ("Push to the Hub", "推送到 Hub"),
    "share_title": ("Share these settings", "分享这些设置"),
    "share_button": ("Make a link to these settings", "生成这些设置的链接"),
    "share_link": ("Link to these settings", "这些设置的链接"),
    # --- the guided tour (tour.py): one short sentence a step --------------------------------
    "tour_button": ("Tour", "导览"),
    "tour_progress": ("Tour · step {n} of {total}", "导览 · 第 {n} 步，共 {total} 步"),
    "tour_next": ("Next", "下一步"),
    "tour_finish": ("Finish", "完成"),
    "tour_skip_step": ("Skip this step", "跳过这一步"),
    "tour_close": ("Close the tour", "关闭导览"),
    "tour_show_me": ("Show me", "带我去"),
    "tour_waiting": ("The tour moves on when you have done it.", "你完成后，导览会自动进入下一步。"),
    "tour_welcome": ("Welcome! This tour trains a small language model with you, one control at "
                     "a time. The text to learn from, Tiny Shakespeare, is already chosen.",
                     "欢迎！这个导览会带你一步一步训练一个小型语言模型。要学习的文本 Tiny "
                     "Shakespeare 已经选好了。"),
    "tour_tokenizer": ("First cut the text into tokens: press 'Train tokenizer'.",
                       "先把文本切成词元：点击“训练分词器”。"),
    "tour_start": ("Now train the model: press 'Start training'.", "现在训练模型：点击“开始训练”。"),
    "tour_loss": ("Watch the loss fall. Below the dashed line 'knowing only letter frequencies', "
                  "the model knows more than how often each letter comes; wait for the run to "
                  "end.",
                  "看着损失下降。降到虚线“只知道每个字符的频率”以下，"
                  "说明模型学到的不只是每个字母出现得多频繁；等这次训练结束。"),
    "tour_generate": ("Let your model write: press 'Generate'.", "让你的模型写点东西：点击“生成”。"),
    "tour_attention": ("See which earlier tokens each token looks at: press 'Show attention'.",
                       "看看每个词元在关注前面的哪些词元：点击“显示注意力”。"),
    "tour_one_change": ("Change one setting of your run (or keep the one chosen) and press "
                        "'Train the same run with this one change'. Wait for that run to end.",
                        "改动这次运行的一个设置（或保留已选的那个），然后点击“只改这一处，"
                        "重新训练同一运行”。等这次运行结束。"),
    "tour_compare": ("Tick both runs to draw their validation curves together: which one learned "
                     "better?",
                     "勾选两次运行，把它们的验证曲线画在一起：哪一个学得更好？"),
    "tour_end": ("That is the tour. Reopen it any time with the Tour button at the top; every "
                 "tab has more to try.",
                 "导览到此结束。随时可以点页面顶部的“导览”按钮再打开它；"
                 "每个标签页还有更多可以尝试的。"),
    # --- page wiring (placeholder-free: the page's translator gets no values) -------------------
    "page_intro": ("# Transformer Playground\nBuild a small Transformer language model from "
                   "scratch, train it and look inside it. Go through the tabs in order: **1** "
                   "pick a text, **2** train a tokenizer, **3** train a model and watch the loss "
                   "fall, **4** let it write, **5** see where it pays attention, **6** compare "
                   "runs, **7** take the model with you. The defaults work: just press the "
                   "buttons.",
                   "# Transformer 游乐场\n从零开始构建一个小型 Transformer 语言模型，"
                   "训练它并观察它的内部。按顺序浏览各标签页：**1** 选择文本，**2** 训练分词器，"
                   "**3** 训练模型并看着损失下降，**4** 让它写作，**5** 看它关注哪里，**6** "
                   "比较运行，**7** 把模型带走。默认设置即可使用：只需按下按钮。"),
    "language_note": ("The page follows your browser's language (English or 简体中文); switch it "
                      "at the top right, under Settings at the very bottom of the page, or with "
                      "?lang=zh-CN (or ?lang=en) in the address.",
                      "页面跟随浏览器的语言（English 或 简体中文）；可以在右上角切换，"
                      "也可以在页面最底部的“设置”中切换，或在地址后加上 ?lang=zh-CN（或 "
                      "?lang=en）。"),
    "corpus_files_label": ("Your text files (.txt, .md, UTF-8, up to 5 MB)",
                           "你的文本文件（.txt、.md，UTF-8，最大 5 MB）"),
    "corpus_preview_label": ("Preview (the first 1,000 characters)", "预览（前 1,000 个字符）"),
    "attention_text_info_fixed": ("At most 64 tokens are shown; empty uses the first 32 tokens "
                                  "of your last generation (or of the corpus).",
                                  "最多显示 64 个词元；留空则使用你上次生成的文本（或语料）的前 "
                                  "32 个词元。"),
    "attention_patterns": ("**What to look for.** A bright cell is a token (row) looking at an "
                           "earlier one (column). A bright line just left of the diagonal: a "
                           "*previous-token* head, each token reading the one before it. A "
                           "bright first column: a head that looks at the *start*, a resting "
                           "place when nothing else matters. Bright columns under ␣ or ↵: a head "
                           "that looks at *spaces and line breaks*, where the word or the line "
                           "began. Bright cells under the same letter further back: a head that "
                           "finds *the same token earlier*, which helps to copy. A head's title "
                           "names the pattern that holds most of its weight, when one does; a "
                           "briefly trained model shows them faintly, so compare the layers, and "
                           "train longer.",
                           "**看什么。** 亮的格子表示一个词元（行）在看一个更早的词元（列）。"
                           "紧贴对角线左侧的一条亮线：*前一个词元*头，"
                           "每个词元都在读它前面的那个。第一列很亮：看*开头*的头，"
                           "在没有别的要看时把注意力放在那里。␣ 或 ↵ 下面的亮列："
                           "看*空格和换行*的头，也就是词或行开始的地方。"
                           "更早处同一个字母下面的亮格：找*前面相同词元*的头，它有助于复制。"
                           "每个头的标题会写出占它大部分权重的模式（如果有的话）；"
                           "训练时间短的模型只会隐约显出这些模式，所以比较不同的层，"
                           "并训练得久一些。"),
    "merges_intro": ("Step through the first merges BPE learned and watch the sample's tokens "
                     "fuse: at 0 every byte is its own token; each merge glues one frequent pair.",
                     "逐步查看 BPE 学到的前几次合并，观察示例句子的词元如何融合：0 "
                     "时每个字节都是一个词元；每次合并把一对常见的相邻词元粘在一起。"),
    "merges_sample_info": ("Any sentence; its tokens are redrawn at each step.",
                           "任意句子；每一步都会重新画出它的词元。"),
    "merges_slider_info": ("How many of the learned merges to apply, in the order BPE learned "
                           "them.",
                           "按 BPE 学习的顺序，应用多少次学到的合并。"),
    "plot_x_info": ("What the horizontal axis counts.", "横轴表示什么。"),
    "compare_base_run": ("Run to start from", "作为起点的运行"),
    "compare_base_run_info": ("The new run copies this run's settings, seed and data.",
                              "新运行复制这次运行的设置、种子和数据。"),
    "compare_setting_info": ("The one setting that differs in the new run.",
                             "新运行中唯一不同的设置。"),
    "compare_value_info": ("Pick or type the new value.", "选择或输入新的值。"),
    "compare_table": ("Settings that differ, and the final figures of each run",
                      "不同的设置，以及每次运行的最终数据"),
    "compare_refresh": ("Refresh the list of runs", "刷新运行列表"),
    "compare_x_info": ("What the horizontal axis counts.", "横轴表示什么。"),
    "export_intro": ("Take your model with you: a single readable Python file that runs it, or a "
                     "copy on the Hugging Face Hub.",
                     "把你的模型带走：一个能运行它的、可读的 Python 文件，或者 Hugging Face Hub "
                     "上的一份副本。"),
    "export_script_make": ("Make the standalone script", "生成独立脚本"),
    "export_script_file": ("Standalone script and model bundle", "独立脚本和模型包"),
    "hub_title": ("Push to the Hugging Face Hub", "推送到 Hugging Face Hub"),
    "hub_repo_info": ("Created if it does not exist; the bundle, a model card and the script are "
                      "uploaded in one commit.",
                      "不存在时会自动创建；模型包、模型卡片和脚本会在一次提交中上传。"),
    "hub_private_info": ("Only you (and your organisation) can see a private repository.",
                         "只有你（和你的组织）能看到私有仓库。"),
    "share_intro": ("A link that opens this page with the settings of every tab filled in (your "
                    "own text is not part of it).",
                    "一个链接：打开后页面上每个标签页的设置都会被填好（不包含你自己的文本）。"),
    "share_link_info": ("Copy it with the button on the right and send it to anyone.",
                        "用右边的按钮复制，然后发给任何人。"),
    "lesson_title": ("Lesson link (for a class)", "课程链接（给一个班）"),
    "lesson_intro": ("A share link that also says what a class sees: only the tabs and settings "
                     "you tick, a toy task, and your title and text at the top. Everything not "
                     "ticked is hidden, and hidden settings keep this page's values. Learners "
                     "can still show the whole playground with one button.",
                     "一个分享链接，同时规定全班看到什么：只显示你勾选的标签页和设置、"
                     "一个小任务，以及页面顶部你写的标题和说明。没有勾选的都会隐藏，"
                     "隐藏的设置保持本页面的取值。学生仍可以用一个按钮显示整个 Playground。"),
    "lesson_name": ("Lesson title", "课程标题"),
    "lesson_name_info": ("Shown at the top of the page, as plain text (up to 80 characters).",
                         "显示在页面顶部，作为纯文本（最多 80 个字符）。"),
    "lesson_text": ("What to do", "要做什么"),
    "lesson_text_info": ("A few sentences for the class, shown under the title as plain text (up "
                         "to 600 characters; no links or pictures).",
                         "给全班的几句话，作为纯文本显示在标题下面（最多 600 个字符；"
                         "不能有链接或图片）。"),
    "lesson_task": ("Toy task to open", "要打开的小任务"),
    "lesson_task_info": ("Opened as the corpus. Pick it on the Corpus tab first, so the settings "
                         "the link carries are the task's own. Empty: the corpus of the link's "
                         "settings.",
                         "作为语料打开。请先在“语料”标签页选好它，"
                         "这样链接携带的就是该任务自己的设置。留空：使用链接设置中的语料。"),
    "lesson_tour": ("Open the guided tour", "打开引导教程"),
    "lesson_tour_info": ("The page opens with the tour that walks through training and looking "
                         "inside, step by step (each learner can close it).",
                         "页面打开时就显示引导教程，"
                         "一步一步带着走完训练和查看模型内部（每个学习者都可以关掉它）。"),
    "lesson_board": ("A class board", "班级看板"),
    "lesson_board_info": ("Learners may share their runs (a nickname, settings, curve, figures "
                          "and one sample; nothing else) to a board the whole class sees, best "
                          "first. The link carries a class code no one can guess.",
                          "学习者可以把自己的训练分享到全班都能看到的看板上（昵称、设置、曲线、"
                          "最终数据和一段样例，别的都不分享），按成绩排序。"
                          "链接里带着一个别人猜不到的班级代码。"),
    "board_intro": ("**The class board**: the runs your class chose to share, best first, with "
                    "their validation curves and the settings that differ. It updates by itself "
                    "as runs finish. Only the runs of this class, whose link you opened, are "
                    "here.",
                    "**班级看板**：你的班级选择分享的训练，成绩最好的排在前面，"
                    "附带它们的验证曲线和不同的设置。每当有训练结束，它会自动更新。"
                    "这里只有你打开的链接所属班级的训练。"),
    "board_ranking": ("Ranking", "排名"),
    "board_plot": ("Validation curves of the shared runs", "分享的训练的验证曲线"),
    "board_table": ("Settings that differ, and final figures", "不同的设置与最终数据"),
    "board_share_intro": ("**Share your runs.** Pick a nickname and tick the box: each run you "
                          "finish on the Train tab then appears on this board, beside your "
                          "classmates'.",
                          "**分享你的训练。** 取一个昵称并勾选下面的框："
                          "之后你在训练标签页上完成的每次训练都会出现在这个看板上，"
                          "和同学们的放在一起。"),
    "board_nickname": ("Nickname", "昵称"),
    "board_nickname_info": ("The name your runs have on the board (at most 24 characters).",
                            "你的训练在看板上显示的名字（最多 24 个字符）。"),
    "board_share": ("Share my runs with the class", "与班级分享我的训练"),
    "board_share_info": ("Your latest run goes to the board now, and each run you finish later. "
                         "Only its name, settings, curve, final figures and one sample are "
                         "shared, never your text or model. Untick to take them off.",
                         "你最近的一次训练现在就会放到看板上，之后每完成一次训练也会放上去。"
                         "只分享训练的名字、设置、曲线、最终数据和一段样例，"
                         "绝不分享你的文本或模型。取消勾选即可撤下。"),
    "lesson_tabs": ("Tabs shown", "显示的标签页"),
    "lesson_tabs_info": ("The class sees only these tabs; the first one ticked opens first.",
                         "全班只看到这些标签页；勾选的第一个最先打开。"),
    "lesson_settings_intro": ("**Settings shown** (under Advanced on the Train tab). Untick a "
                              "setting to hide it at this page's value; with any unticked, the "
                              "preset menu and the bundle upload are hidden too, since either "
                              "changes every setting.",
                              "**显示的设置**（在“训练”标签页的“高级”里）。取消勾选的设置会隐藏，"
                              "并保持本页面的取值；只要有一个取消勾选，"
                              "预设菜单和模型包上传也会隐藏，因为两者都会改变所有设置。"),
    "lesson_button": ("Make the lesson link", "生成课程链接"),
    "lesson_link": ("Lesson link", "课程链接"),
    "lesson_link_info": ("Copy it with the button on the right; below, what it will show.",
                         "用右边的按钮复制；下面是它将显示的内容。"),
    "lesson_show_all": ("Show the whole playground", "显示整个 Playground"),
    "lesson_show_all_info": ("This page shows only what the lesson needs. The button shows every "
                             "tab and setting.",
                             "这个页面只显示课程需要的部分。点击按钮可显示所有标签页和设置。"),
    "page_footer": ("<small>Each visitor has their own text, tokenizer and model. Everyone's "
                    "training, generation and attention share this machine in short turns (one "
                    "at a time), so every run moves within seconds, and a waiting run shows its "
                    "place.</small>",
                    "<small>每位访客都有自己的文本、分词器和模型。大家的训练、"
                    "生成和注意力计算在这台机器上以很短的轮次轮流进行（一次一个），"
                    "所以每个训练几秒内就会动起来，等待中的训练会显示它的位置。</small>"),
    "page_footer_parallel": ("<small>Each visitor has their own text, tokenizer and model. "
                             "Everyone's training, generation and attention share this machine "
                             "in short turns (a few at a time), so every run moves within "
                             "seconds, and a waiting run shows its place.</small>",
                             "<small>每位访客都有自己的文本、分词器和模型。大家的训练、"
                             "生成和注意力计算在这台机器上以很短的轮次轮流进行（一次几个），"
                             "所以每个训练几秒内就会动起来，等待中的训练会显示它的位置。</small>"),
    "page_coach_empty": ("**Training coach**  \nNothing to flag so far.",
                         "**训练教练**  \n目前没有需要提醒的问题。"),
    # the preset menu: "name: description" of each preset (config.PRESETS; the page offers them all)
    "page_preset_quick": ("quick: 3 layers with RoPE, squared ReLU, QK-norm, a token shift and "
                          "the Muon optimizer for 1100 steps: Shakespeare-shaped text (val loss "
                          "about 1.59), with a sample at every evaluation.",
                          "quick：3 层模型，使用 RoPE、平方 ReLU、QK 归一化、token shift 和 Muon "
                          "优化器训练 1100 步：写出有莎士比亚剧本样子的文本（验证损失约 1.59），"
                          "每次评估都会写一段样本。"),
    "page_preset_cpu_speedrun": ("cpu-speedrun: The fastest way to val loss 1.88 on a CPU: 180 "
                                 "steps of 2 layers with RoPE, squared ReLU, QK-norm, a token "
                                 "shift and the Muon optimizer.",
                                 "cpu-speedrun：在 CPU 上最快把验证损失降到 1.88 的配方：2 "
                                 "层模型，使用 RoPE、平方 ReLU、QK 归一化、token shift 和 Muon "
                                 "优化器，训练 180 步。"),
    "page_preset_tiny": ("tiny: A very small model that trains in about a minute on a laptop CPU.",
                         "tiny：一个非常小的模型，在笔记本电脑的 CPU 上大约一分钟就能训练完。"),
    "page_preset_nanogpt_cpu": ("nanogpt-cpu: nanoGPT's CPU recipe for Tiny Shakespeare: 4 "
                                "layers, 128 wide, 2000 steps.",
                                "nanogpt-cpu：nanoGPT 在 CPU 上训练 Tiny Shakespeare 的配方：4 "
                                "层，宽 128，2000 步。"),
    "page_preset_nanogpt_gpu": ("nanogpt-gpu: nanoGPT's GPU recipe for Tiny Shakespeare: 6 "
                                "layers, 384 wide, context 256.",
                                "nanogpt-gpu：nanoGPT 在 GPU 上训练 Tiny Shakespeare 的配方：6 "
                                "层，宽 384，上下文长度 256。"),
    "page_preset_gpu_speedrun": ("gpu-speedrun: nanoGPT's GPU model with the speedrun's switches "
                                 "(RoPE, squared ReLU, QK-norm, zero-init, Muon): aimed at val "
                                 "loss 1.47 in under 30 seconds on a big GPU.",
                                 "gpu-speedrun：nanoGPT 的 GPU 模型加上速通的各项开关（RoPE、"
                                 "平方 ReLU、QK 归一化、零初始化、Muon）：目标是在大 GPU 上 30 "
                                 "秒内把验证损失降到 1.47。"),
}


def _language(lang: str) -> dict[str, str]:
    """Every label in ``lang``: the table's, then label_<field> and info_<field> of every
    setting, from its config field."""
    texts = {key: pair[("en", "zh-CN").index(lang)] for key, pair in LABELS.items()}
    for name in SETTING_FIELDS:
        texts[f"label_{name}"], texts[f"info_{name}"] = setting_text(name, lang)
    return texts


EN: dict[str, str] = _language("en")
ZH_CN: dict[str, str] = _language("zh-CN")


def gradio_i18n_dict() -> dict[str, dict[str, str]]:
    """What ``gr.I18n(**...)`` takes: {locale: {id: label}} (fresh copies, safe to change)."""
    return {"en": dict(EN), "zh-CN": dict(ZH_CN)}

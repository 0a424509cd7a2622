// libamora_llama.so: the small C ABI through which Amora runs llama.cpp in-process, so the
// embedded chat engine decodes many conversations in one batch over one shared KV cache
// without a llama-server process and its HTTP in between.
//
// The Rust side, which loads this library at run time (libloading) and mirrors the ABI
// below, is ai/src/chat/embedded/llama_cpp. scripts/lib/model.sh builds the library
// (`scripts/lib/model.sh llama-shim`) against the static archives of the very llama.cpp
// build that gives llama-server, and exports only the amora_llama_* functions: llama.cpp's
// and ggml's own symbols stay hidden inside it.
//
// One amora_llama is one model, one context and one batch. It is not thread-safe: the
// caller uses one handle from one thread at a time (llama.cpp's context is not either).
// C++ exceptions never cross the ABI: a function that could throw returns NULL or -101.
// Arguments are checked here because llama.cpp aborts the process (GGML_ASSERT) on some
// bad ones, such as a sequence id out of range in the KV-cache functions.

#include "llama.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#define AMORA_API extern "C" __attribute__((visibility("default")))

// A bad argument to amora_llama_decode (llama_decode's own statuses are 0, 1, 2 and < 0).
static constexpr int32_t AMORA_BAD_ARGUMENT = -100;
// A C++ exception caught at the ABI boundary.
static constexpr int32_t AMORA_EXCEPTION = -101;

struct amora_llama {
    llama_model * model = nullptr;
    llama_context * ctx = nullptr;
    llama_batch batch = {};
    bool batch_allocated = false;
    int32_t n_batch = 0;
    int32_t n_seq_max = 0;
    int32_t n_vocab = 0;
    // Which entries of the last decode asked for logits, and how many entries it had (0 after
    // a failed decode): llama_get_logits_ith logs an error for an entry that was not asked,
    // and after a failed decode its output buffers are no longer those of the caller's batch.
    std::vector<int8_t> asked;
    int32_t n_last = 0;
};

// llama.cpp logs every load step and every context parameter at INFO level. The server's
// stderr keeps only what needs a look: warnings and errors, marked as llama.cpp's.
// A message may come in pieces, the later ones with GGML_LOG_LEVEL_CONT: they follow the
// level of the piece before them on the same thread.
static void amora_log(enum ggml_log_level level, const char * text, void * /*user_data*/) {
    static thread_local enum ggml_log_level last = GGML_LOG_LEVEL_NONE;
    const bool continued = level == GGML_LOG_LEVEL_CONT;
    if (continued) {
        level = last;
    } else {
        last = level;
    }
    if (level != GGML_LOG_LEVEL_WARN && level != GGML_LOG_LEVEL_ERROR) {
        return;
    }
    if (!continued) {
        std::fputs("llama.cpp: ", stderr);
    }
    std::fputs(text, stderr);
}

// Once per process, whatever the number of models opened: the logger first, so that the
// backend's own start-up messages are filtered too.
static void amora_init() {
    static std::once_flag once;
    std::call_once(once, [] {
        llama_log_set(amora_log, nullptr);
        llama_backend_init();
    });
}

static void amora_error(char * err, size_t err_len, const std::string & message) {
    if (err != nullptr && err_len > 0) {
        std::snprintf(err, err_len, "%s", message.c_str());
    }
}

static void amora_free(amora_llama * l) {
    if (l == nullptr) {
        return;
    }
    if (l->batch_allocated) {
        llama_batch_free(l->batch);
    }
    if (l->ctx != nullptr) {
        llama_free(l->ctx);
    }
    if (l->model != nullptr) {
        llama_model_free(l->model);
    }
    delete l;
}

static bool amora_valid_seq(const amora_llama * l, int32_t seq) {
    return seq >= 0 && seq < l->n_seq_max;
}

AMORA_API amora_llama * amora_llama_open(const char * path, uint32_t n_ctx, uint32_t n_seq_max, uint32_t n_batch,
                                         int32_t n_threads, char * err, size_t err_len) {
    amora_llama * l = nullptr;
    try {
        if (err != nullptr && err_len > 0) {
            err[0] = '\0';
        }
        if (path == nullptr || path[0] == '\0') {
            amora_error(err, err_len, "no model path");
            return nullptr;
        }
        if (n_ctx == 0 || n_batch == 0 || n_threads < 1) {
            amora_error(err, err_len, "n_ctx, n_batch and n_threads must be at least 1");
            return nullptr;
        }
        // llama.cpp rounds n_ctx up (to a multiple of 256) but caps n_batch at n_ctx: asking for
        // batches the context cannot take is the caller's mistake, told here rather than later.
        if (n_batch > n_ctx) {
            amora_error(err, err_len,
                        "n_batch (" + std::to_string(n_batch) + ") is larger than n_ctx (" + std::to_string(n_ctx) + ")");
            return nullptr;
        }
        amora_init();
        if (n_seq_max == 0 || n_seq_max > llama_max_parallel_sequences()) {
            amora_error(err, err_len,
                        "n_seq_max must be between 1 and " + std::to_string(llama_max_parallel_sequences()));
            return nullptr;
        }

        l = new amora_llama();

        llama_model_params mparams = llama_model_default_params();
        mparams.n_gpu_layers = 0;                   // every layer on the CPU
        mparams.load_mode = LLAMA_LOAD_MODE_MMAP;   // the weights stay in the page cache, shared
        l->model = llama_model_load_from_file(path, mparams);
        if (l->model == nullptr) {
            amora_error(err, err_len, std::string("cannot load the model ") + path);
            amora_free(l);
            return nullptr;
        }

        llama_context_params cparams = llama_context_default_params();
        cparams.n_ctx = n_ctx;
        cparams.n_batch = n_batch;
        cparams.n_ubatch = n_batch;                 // one decode is one compute graph
        cparams.n_seq_max = n_seq_max;
        cparams.n_threads = n_threads;
        cparams.n_threads_batch = n_threads;
        cparams.embeddings = false;
        // One KV cache of n_ctx cells shared by every sequence: seq_cp then tags the cells of a
        // shared prefix with one more sequence instead of copying them, and a sequence may
        // grow as long as the free cells allow rather than n_ctx / n_seq_max.
        cparams.kv_unified = true;
        // flash_attn_type stays at the library default (auto).
        l->ctx = llama_init_from_model(l->model, cparams);
        if (l->ctx == nullptr) {
            amora_error(err, err_len, "cannot create a llama.cpp context (n_ctx " + std::to_string(n_ctx) +
                                          ", n_seq_max " + std::to_string(n_seq_max) + ", n_batch " +
                                          std::to_string(n_batch) + ")");
            amora_free(l);
            return nullptr;
        }
        if (llama_get_memory(l->ctx) == nullptr) {
            amora_error(err, err_len, "the model has no KV cache (not a text-generation model)");
            amora_free(l);
            return nullptr;
        }

        l->n_batch = static_cast<int32_t>(n_batch);
        l->n_seq_max = static_cast<int32_t>(n_seq_max);
        l->n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(l->model));
        l->batch = llama_batch_init(l->n_batch, 0, 1);
        l->batch_allocated = true;
        l->asked.assign(n_batch, 0);
        return l;
    } catch (const std::exception & e) {
        amora_error(err, err_len, std::string("llama.cpp: ") + e.what());
    } catch (...) {
        amora_error(err, err_len, "llama.cpp: unknown exception");
    }
    try {
        amora_free(l);
    } catch (...) {
    }
    return nullptr;
}

AMORA_API void amora_llama_close(amora_llama * l) {
    try {
        amora_free(l);
    } catch (...) {
    }
}

AMORA_API int32_t amora_llama_n_vocab(const amora_llama * l) {
    return l == nullptr ? 0 : l->n_vocab;
}

AMORA_API int32_t amora_llama_n_ctx(const amora_llama * l) {
    return l == nullptr ? 0 : static_cast<int32_t>(llama_n_ctx(l->ctx));
}

AMORA_API int32_t amora_llama_n_ctx_train(const amora_llama * l) {
    return l == nullptr ? 0 : llama_model_n_ctx_train(l->model);
}

AMORA_API int32_t amora_llama_decode(amora_llama * l, int32_t n, const int32_t * token, const int32_t * pos,
                                     const int32_t * seq, const int8_t * logits) {
    if (l == nullptr || n < 1 || n > l->n_batch || token == nullptr || pos == nullptr || seq == nullptr ||
        logits == nullptr) {
        return AMORA_BAD_ARGUMENT;
    }
    for (int32_t i = 0; i < n; ++i) {
        if (token[i] < 0 || token[i] >= l->n_vocab || pos[i] < 0 || !amora_valid_seq(l, seq[i])) {
            return AMORA_BAD_ARGUMENT;
        }
    }
    try {
        llama_batch & b = l->batch;
        b.n_tokens = n;
        for (int32_t i = 0; i < n; ++i) {
            b.token[i] = token[i];
            b.pos[i] = pos[i];
            b.n_seq_id[i] = 1;
            b.seq_id[i][0] = seq[i];
            b.logits[i] = logits[i] != 0 ? 1 : 0;
        }
        l->n_last = 0;
        const int32_t status = llama_decode(l->ctx, b);
        if (status == 0) {
            for (int32_t i = 0; i < n; ++i) {
                l->asked[i] = b.logits[i];
            }
            l->n_last = n;
        }
        return status;
    } catch (...) {
        l->n_last = 0;
        return AMORA_EXCEPTION;
    }
}

AMORA_API const float * amora_llama_logits(amora_llama * l, int32_t i) {
    if (l == nullptr || i < 0 || i >= l->n_last || l->asked[i] == 0) {
        return nullptr;
    }
    try {
        return llama_get_logits_ith(l->ctx, i);
    } catch (...) {
        return nullptr;
    }
}

AMORA_API int32_t amora_llama_seq_rm(amora_llama * l, int32_t seq, int32_t p0, int32_t p1) {
    if (l == nullptr || !amora_valid_seq(l, seq)) {
        return 0;
    }
    try {
        return llama_memory_seq_rm(llama_get_memory(l->ctx), seq, p0, p1) ? 1 : 0;
    } catch (...) {
        return 0;
    }
}

AMORA_API void amora_llama_seq_cp(amora_llama * l, int32_t src, int32_t dst, int32_t p0, int32_t p1) {
    if (l == nullptr || !amora_valid_seq(l, src) || !amora_valid_seq(l, dst)) {
        return;
    }
    try {
        llama_memory_seq_cp(llama_get_memory(l->ctx), src, dst, p0, p1);
    } catch (...) {
    }
}

AMORA_API int32_t amora_llama_seq_pos_max(amora_llama * l, int32_t seq) {
    if (l == nullptr || !amora_valid_seq(l, seq)) {
        return -1;
    }
    try {
        return llama_memory_seq_pos_max(llama_get_memory(l->ctx), seq);
    } catch (...) {
        return -1;
    }
}

AMORA_API const char * amora_llama_system_info(void) {
    try {
        amora_init();
        return llama_print_system_info();
    } catch (...) {
        return "";
    }
}

//! `libamora_llama.so`, loaded at run time: the C ABI of `ai/native/amora_llama.cpp`, a
//! shim over llama.cpp that `scripts/lib/model.sh llama-shim` builds for this machine's CPU.
//!
//! The shim takes and returns only scalars, pointers to arrays and an opaque handle, so no
//! struct of llama.h crosses the boundary: the C compiler lays those out against the pinned
//! llama.h, and nothing here depends on them. This is the one module of the workspace with
//! `unsafe` code; every call is wrapped in a safe method of [`Llama`].
#![allow(unsafe_code)]

use std::ffi::{CStr, CString, c_char, c_void};
use std::path::{Path, PathBuf};
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

use libloading::Library;

use crate::AiError;

type Open = unsafe extern "C" fn(*const c_char, u32, u32, u32, i32, *mut c_char, usize) -> *mut c_void;
type Close = unsafe extern "C" fn(*mut c_void);
type Count = unsafe extern "C" fn(*const c_void) -> i32;
type Decode = unsafe extern "C" fn(*mut c_void, i32, *const i32, *const i32, *const i32, *const i8) -> i32;
type Logits = unsafe extern "C" fn(*mut c_void, i32) -> *const f32;
type SeqRm = unsafe extern "C" fn(*mut c_void, i32, i32, i32) -> i32;
type SeqPosMax = unsafe extern "C" fn(*mut c_void, i32) -> i32;
type SystemInfo = unsafe extern "C" fn() -> *const c_char;

/// The shim's functions, copied out of the library (valid while it stays loaded).
struct Functions {
    close: Close,
    n_vocab: Count,
    n_ctx: Count,
    n_ctx_train: Count,
    decode: Decode,
    logits: Logits,
    seq_rm: SeqRm,
    seq_pos_max: SeqPosMax,
    system_info: SystemInfo,
}

/// How to make the context.
#[derive(Debug, Clone, Copy)]
pub struct OpenParams {
    /// KV cells in all, shared by every sequence (one unified cache).
    pub cells: u32,
    pub sequences: u32,
    /// Most tokens of one decode.
    pub batch: u32,
    pub threads: i32,
}

/// What a decode did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decoded {
    Done,
    /// The KV cache had no room for the batch; nothing of it was kept.
    NoRoom,
}

/// One batch of tokens for [`Llama::decode`]: token `i` at position `pos[i]` of sequence
/// `seq[i]`, with the logits after it when `logits[i]` is 1.
#[derive(Debug, Default)]
pub struct Batch {
    token: Vec<i32>,
    pos: Vec<i32>,
    seq: Vec<i32>,
    logits: Vec<i8>,
}

impl Batch {
    pub fn clear(&mut self) {
        self.token.clear();
        self.pos.clear();
        self.seq.clear();
        self.logits.clear();
    }

    /// Adds a token; returns its index in the batch.
    pub fn push(&mut self, token: u32, pos: usize, seq: i32, logits: bool) -> usize {
        self.token.push(token as i32);
        self.pos.push(pos as i32);
        self.seq.push(seq);
        self.logits.push(i8::from(logits));
        self.token.len() - 1
    }

    pub fn len(&self) -> usize {
        self.token.len()
    }

    pub fn is_empty(&self) -> bool {
        self.token.is_empty()
    }
}

/// One model and its context. Used by one thread at a time (the engine's worker).
pub struct Llama {
    handle: NonNull<c_void>,
    functions: Functions,
    n_vocab: usize,
    batch_capacity: usize,
    /// Keeps the functions' code loaded (it stays loaded anyway, see `load_library`).
    _library: Arc<Library>,
}

// SAFETY: the handle is llama.cpp's model and context, which one thread may use at a time;
// `Llama` is moved into the worker thread once and used only there (`&mut self` for every
// call that changes the context).
unsafe impl Send for Llama {}

impl std::fmt::Debug for Llama {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Llama").field("n_vocab", &self.n_vocab).finish_non_exhaustive()
    }
}

/// Copies symbol `name` out of `library`.
///
/// SAFETY: the caller names a function of the shim's ABI with its exact type.
unsafe fn symbol<T: Copy>(library: &Library, name: &str) -> Result<T, AiError> {
    // SAFETY: as the function says; the copy is used only while `library` stays loaded.
    unsafe { library.get::<T>(name.as_bytes()) }
        .map(|symbol| *symbol)
        .map_err(|e| AiError::Unavailable(format!("the llama.cpp library has no {name}: {e}")))
}

/// The libraries opened so far, by path, kept loaded for the life of the process: ggml's
/// OpenMP threads outlive a model, and unloading the code they park in crashed the process
/// (SIGSEGV after the last model was dropped). A second model on the same library shares it.
fn load_library(path: &Path) -> Result<Arc<Library>, AiError> {
    static OPENED: Mutex<Vec<(PathBuf, Arc<Library>)>> = Mutex::new(Vec::new());
    let mut opened = OPENED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, library)) = opened.iter().find(|(p, _)| p == path) {
        return Ok(library.clone());
    }
    // SAFETY: loading runs the library's initialisers: llama.cpp's and ggml's, which set up
    // their own state only.
    let library = Arc::new(unsafe { Library::new(path) }.map_err(|e| {
        AiError::Unavailable(format!(
            "cannot load the llama.cpp library {} ({e}); scripts/lib/model.sh llama-shim builds it",
            path.display()
        ))
    })?);
    opened.push((path.to_path_buf(), library.clone()));
    Ok(library)
}

impl Llama {
    /// Loads `library` and, through it, the GGUF at `model`.
    pub fn open(library: &Path, model: &Path, params: OpenParams) -> Result<Self, AiError> {
        let lib = load_library(library)?;
        // SAFETY: each name is one of the shim's functions, with the type of amora_llama.cpp.
        let (open, functions) = unsafe {
            (
                symbol::<Open>(&lib, "amora_llama_open")?,
                Functions {
                    close: symbol(&lib, "amora_llama_close")?,
                    n_vocab: symbol(&lib, "amora_llama_n_vocab")?,
                    n_ctx: symbol(&lib, "amora_llama_n_ctx")?,
                    n_ctx_train: symbol(&lib, "amora_llama_n_ctx_train")?,
                    decode: symbol(&lib, "amora_llama_decode")?,
                    logits: symbol(&lib, "amora_llama_logits")?,
                    seq_rm: symbol(&lib, "amora_llama_seq_rm")?,
                    seq_pos_max: symbol(&lib, "amora_llama_seq_pos_max")?,
                    system_info: symbol(&lib, "amora_llama_system_info")?,
                },
            )
        };
        let path = CString::new(model.as_os_str().as_encoded_bytes())
            .map_err(|_| AiError::BadRequest(format!("the model path {} holds a NUL byte", model.display())))?;
        let mut error = vec![0u8; 512];
        // SAFETY: `path` is NUL-terminated; `error` has the length passed; the shim writes at
        // most that many bytes, NUL included.
        let handle = unsafe {
            open(
                path.as_ptr(),
                params.cells,
                params.sequences,
                params.batch,
                params.threads,
                error.as_mut_ptr().cast(),
                error.len(),
            )
        };
        let Some(handle) = NonNull::new(handle) else {
            let message = CStr::from_bytes_until_nul(&error)
                .map_or_else(|_| "unknown error".to_owned(), |text| text.to_string_lossy().into_owned());
            return Err(AiError::Unavailable(format!("llama.cpp cannot load {}: {message}", model.display())));
        };
        let mut llama = Self { handle, functions, n_vocab: 0, batch_capacity: params.batch as usize, _library: lib };
        // SAFETY: a live handle.
        let n_vocab = unsafe { (llama.functions.n_vocab)(llama.handle.as_ptr()) };
        llama.n_vocab = usize::try_from(n_vocab).unwrap_or(0);
        if llama.n_vocab == 0 {
            return Err(AiError::Unavailable(format!("{} has no vocabulary", model.display())));
        }
        Ok(llama)
    }

    pub fn n_vocab(&self) -> usize {
        self.n_vocab
    }

    /// KV cells the context has.
    pub fn n_ctx(&self) -> usize {
        // SAFETY: a live handle.
        usize::try_from(unsafe { (self.functions.n_ctx)(self.handle.as_ptr()) }).unwrap_or(0)
    }

    /// The context length the model was trained with.
    pub fn n_ctx_train(&self) -> usize {
        // SAFETY: a live handle.
        usize::try_from(unsafe { (self.functions.n_ctx_train)(self.handle.as_ptr()) }).unwrap_or(0)
    }

    /// Decodes `batch` (at most the batch size given to [`Llama::open`]).
    pub fn decode(&mut self, batch: &Batch) -> Result<Decoded, AiError> {
        if batch.is_empty() || batch.len() > self.batch_capacity {
            return Err(AiError::Internal(format!("a batch of {} tokens for llama.cpp", batch.len())));
        }
        // SAFETY: a live handle; the four arrays have `batch.len()` entries each.
        let status = unsafe {
            (self.functions.decode)(
                self.handle.as_ptr(),
                batch.len() as i32,
                batch.token.as_ptr(),
                batch.pos.as_ptr(),
                batch.seq.as_ptr(),
                batch.logits.as_ptr(),
            )
        };
        match status {
            0 => Ok(Decoded::Done),
            1 => Ok(Decoded::NoRoom),
            status => Err(AiError::Internal(format!("llama.cpp's decode failed ({status})"))),
        }
    }

    /// The logits after entry `index` of the last decode, if it asked for them.
    pub fn logits(&self, index: usize) -> Option<&[f32]> {
        // SAFETY: a live handle; the shim returns NULL or `n_vocab` floats that stay valid
        // until the next decode, which needs `&mut self` while this borrow holds `&self`.
        unsafe {
            let logits = (self.functions.logits)(self.handle.as_ptr(), index as i32);
            (!logits.is_null()).then(|| std::slice::from_raw_parts(logits, self.n_vocab))
        }
    }

    /// Forgets sequence `seq` from position `from` on (`None`: all of it).
    pub fn seq_rm(&mut self, seq: i32, from: Option<usize>) -> bool {
        let from = from.map_or(-1, |p| p as i32);
        // SAFETY: a live handle.
        unsafe { (self.functions.seq_rm)(self.handle.as_ptr(), seq, from, -1) == 1 }
    }

    /// The highest position sequence `seq` holds, `None` when it is empty.
    pub fn seq_pos_max(&mut self, seq: i32) -> Option<usize> {
        // SAFETY: a live handle.
        usize::try_from(unsafe { (self.functions.seq_pos_max)(self.handle.as_ptr(), seq) }).ok()
    }

    /// The CPU features llama.cpp computes with.
    pub fn system_info(&self) -> String {
        // SAFETY: the shim returns a static NUL-terminated string (or NULL).
        unsafe {
            let info = (self.functions.system_info)();
            if info.is_null() { String::new() } else { CStr::from_ptr(info).to_string_lossy().into_owned() }
        }
    }
}

impl Drop for Llama {
    fn drop(&mut self) {
        // SAFETY: the handle is live and closed once; the library is still loaded.
        unsafe { (self.functions.close)(self.handle.as_ptr()) }
    }
}

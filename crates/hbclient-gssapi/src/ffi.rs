//! The only module with `unsafe`: MIT GSSAPI's C functions, loaded at run time, and owned handles
//! (names, credentials, contexts) that release themselves on drop.
//!
//! Declarations follow MIT's `gssapi/gssapi.h` and `gssapi_ext.h` (RFC 2744 types): `OM_uint32`
//! is `u32`, handles are opaque pointers, buffers are `{size_t length; void *value}`. Input
//! buffers are declared `*const` here; MIT never writes through them, and the ABI is the same.

use std::ffi::{c_char, c_int, c_void, CString, OsStr};
use std::ptr;
use std::sync::Arc;

use crate::error::{GssError, GssErrorKind};

type GssName = *mut c_void;
type GssCred = *mut c_void;
type GssCtx = *mut c_void;

/// `gss_OID_desc`.
#[repr(C)]
struct GssOidDesc {
    length: u32,
    elements: *mut c_void,
}

/// `gss_OID_set_desc`.
#[repr(C)]
struct GssOidSetDesc {
    count: usize,
    elements: *mut GssOidDesc,
}

/// `gss_buffer_desc`.
#[repr(C)]
struct GssBufferDesc {
    length: usize,
    value: *mut c_void,
}

impl GssBufferDesc {
    fn empty() -> GssBufferDesc {
        GssBufferDesc {
            length: 0,
            value: ptr::null_mut(),
        }
    }

    /// A descriptor that borrows `data` (valid while `data` is).
    fn borrowing(data: &[u8]) -> GssBufferDesc {
        GssBufferDesc {
            length: data.len(),
            value: data.as_ptr() as *mut c_void,
        }
    }
}

/// `gss_key_value_element_desc` (a credential store entry, `gssapi_ext.h`).
#[repr(C)]
struct GssKeyValueElement {
    key: *const c_char,
    value: *const c_char,
}

/// `gss_key_value_set_desc`.
#[repr(C)]
struct GssKeyValueSet {
    count: u32,
    elements: *const GssKeyValueElement,
}

/// The krb5 mechanism, 1.2.840.113554.1.2.2.
const OID_KRB5_MECH: &[u8] = b"\x2a\x86\x48\x86\xf7\x12\x01\x02\x02";
/// GSS_C_NT_HOSTBASED_SERVICE, 1.2.840.113554.1.2.1.4 (`service@host`).
const OID_NT_HOSTBASED_SERVICE: &[u8] = b"\x2a\x86\x48\x86\xf7\x12\x01\x02\x01\x04";
/// GSS_KRB5_NT_PRINCIPAL_NAME, 1.2.840.113554.1.2.2.1 (`primary/instance@REALM`).
const OID_KRB5_NT_PRINCIPAL_NAME: &[u8] = b"\x2a\x86\x48\x86\xf7\x12\x01\x02\x02\x01";

/// A descriptor pointing at one of the constant OIDs above. MIT copies or compares OIDs by
/// content, so a descriptor built for one call is enough.
fn oid(bytes: &'static [u8]) -> GssOidDesc {
    GssOidDesc {
        length: bytes.len() as u32,
        elements: bytes.as_ptr() as *mut c_void,
    }
}

/// Major status: calling and routine error fields (`GSS_ERROR()`).
pub(crate) const ERROR_MASK: u32 = 0xffff_0000;
/// Supplementary bit: the context needs another token.
const S_CONTINUE_NEEDED: u32 = 1;
/// Supplementary bits an unwrap must not report: duplicate, old, unsequenced, gap.
const S_SEQUENCE_PROBLEMS: u32 = 0b1_1110;
/// `gss_display_status` status types.
const C_GSS_CODE: c_int = 1;
const C_MECH_CODE: c_int = 2;
/// `gss_cred_usage_t`.
const C_INITIATE: c_int = 1;
const C_ACCEPT: c_int = 2;
/// GSS_C_INDEFINITE lifetime.
pub(crate) const C_INDEFINITE: u32 = 0xffff_ffff;

type ImportName =
    unsafe extern "C" fn(*mut u32, *const GssBufferDesc, *const GssOidDesc, *mut GssName) -> u32;
type DisplayName =
    unsafe extern "C" fn(*mut u32, GssName, *mut GssBufferDesc, *mut *const GssOidDesc) -> u32;
type ReleaseName = unsafe extern "C" fn(*mut u32, *mut GssName) -> u32;
type AcquireCred = unsafe extern "C" fn(
    *mut u32,
    GssName,
    u32,
    *const GssOidSetDesc,
    c_int,
    *mut GssCred,
    *mut *mut GssOidSetDesc,
    *mut u32,
) -> u32;
type AcquireCredFrom = unsafe extern "C" fn(
    *mut u32,
    GssName,
    u32,
    *const GssOidSetDesc,
    c_int,
    *const GssKeyValueSet,
    *mut GssCred,
    *mut *mut GssOidSetDesc,
    *mut u32,
) -> u32;
type ReleaseCred = unsafe extern "C" fn(*mut u32, *mut GssCred) -> u32;
type InitSecContext = unsafe extern "C" fn(
    *mut u32,
    GssCred,
    *mut GssCtx,
    GssName,
    *const GssOidDesc,
    u32,
    u32,
    *const c_void,
    *const GssBufferDesc,
    *mut *const GssOidDesc,
    *mut GssBufferDesc,
    *mut u32,
    *mut u32,
) -> u32;
type AcceptSecContext = unsafe extern "C" fn(
    *mut u32,
    *mut GssCtx,
    GssCred,
    *const GssBufferDesc,
    *const c_void,
    *mut GssName,
    *mut *const GssOidDesc,
    *mut GssBufferDesc,
    *mut u32,
    *mut u32,
    *mut GssCred,
) -> u32;
type DeleteSecContext = unsafe extern "C" fn(*mut u32, *mut GssCtx, *mut GssBufferDesc) -> u32;
type InquireContext = unsafe extern "C" fn(
    *mut u32,
    GssCtx,
    *mut GssName,
    *mut GssName,
    *mut u32,
    *mut *const GssOidDesc,
    *mut u32,
    *mut c_int,
    *mut c_int,
) -> u32;
type Wrap = unsafe extern "C" fn(
    *mut u32,
    GssCtx,
    c_int,
    u32,
    *const GssBufferDesc,
    *mut c_int,
    *mut GssBufferDesc,
) -> u32;
type Unwrap = unsafe extern "C" fn(
    *mut u32,
    GssCtx,
    *const GssBufferDesc,
    *mut GssBufferDesc,
    *mut c_int,
    *mut u32,
) -> u32;
type ReleaseBuffer = unsafe extern "C" fn(*mut u32, *mut GssBufferDesc) -> u32;
type DisplayStatus = unsafe extern "C" fn(
    *mut u32,
    u32,
    c_int,
    *const GssOidDesc,
    *mut u32,
    *mut GssBufferDesc,
) -> u32;

/// Function pointers copied out of the library; valid while [`Library::_lib`] is loaded.
struct Fns {
    import_name: ImportName,
    display_name: DisplayName,
    release_name: ReleaseName,
    acquire_cred: AcquireCred,
    acquire_cred_from: AcquireCredFrom,
    release_cred: ReleaseCred,
    init_sec_context: InitSecContext,
    accept_sec_context: AcceptSecContext,
    delete_sec_context: DeleteSecContext,
    inquire_context: InquireContext,
    wrap: Wrap,
    unwrap: Unwrap,
    release_buffer: ReleaseBuffer,
    display_status: DisplayStatus,
}

/// The loaded MIT GSSAPI library.
pub(crate) struct Library {
    f: Fns,
    /// Keeps the code behind `f` mapped; never used directly.
    _lib: libloading::Library,
}

impl std::fmt::Debug for Library {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Library(libgssapi_krb5)")
    }
}

/// Copies one function pointer out of `lib`.
///
/// # Safety
/// `T` must be the exact C signature of the symbol `name`.
unsafe fn symbol<T: Copy>(lib: &libloading::Library, name: &str) -> Result<T, String> {
    // SAFETY: the caller guarantees `T` matches the symbol's C type.
    let sym = unsafe { lib.get::<T>(name.as_bytes()) }.map_err(|e| format!("{name}: {e}"))?;
    Ok(*sym)
}

impl Library {
    /// Loads the library at `path` (a file name searched the usual way, or a path) and resolves
    /// every function we use. The error text says what failed.
    pub(crate) fn open(path: &OsStr) -> Result<Library, String> {
        // SAFETY: loading MIT's libgssapi_krb5 runs its ELF initialisers, which only set up
        // internal state (error tables, mutexes); they have no preconditions on us.
        let lib = unsafe { libloading::Library::new(path) }.map_err(|e| e.to_string())?;
        // SAFETY: each type alias above is MIT's prototype for the symbol named with it
        // (gssapi.h / gssapi_ext.h, RFC 2744 and RFC 5587-era extensions).
        let f = unsafe {
            Fns {
                import_name: symbol(&lib, "gss_import_name")?,
                display_name: symbol(&lib, "gss_display_name")?,
                release_name: symbol(&lib, "gss_release_name")?,
                acquire_cred: symbol(&lib, "gss_acquire_cred")?,
                acquire_cred_from: symbol(&lib, "gss_acquire_cred_from")?,
                release_cred: symbol(&lib, "gss_release_cred")?,
                init_sec_context: symbol(&lib, "gss_init_sec_context")?,
                accept_sec_context: symbol(&lib, "gss_accept_sec_context")?,
                delete_sec_context: symbol(&lib, "gss_delete_sec_context")?,
                inquire_context: symbol(&lib, "gss_inquire_context")?,
                wrap: symbol(&lib, "gss_wrap")?,
                unwrap: symbol(&lib, "gss_unwrap")?,
                release_buffer: symbol(&lib, "gss_release_buffer")?,
                display_status: symbol(&lib, "gss_display_status")?,
            }
        };
        Ok(Library { f, _lib: lib })
    }

    /// Copies a buffer MIT allocated and releases it.
    fn take_buffer(&self, buf: &mut GssBufferDesc) -> Vec<u8> {
        let out = if buf.value.is_null() || buf.length == 0 {
            Vec::new()
        } else {
            // SAFETY: MIT filled `buf` with `length` readable bytes at `value`.
            unsafe { std::slice::from_raw_parts(buf.value as *const u8, buf.length) }.to_vec()
        };
        let mut minor = 0;
        // SAFETY: `buf` was allocated by the library (or is empty, which release accepts).
        unsafe { (self.f.release_buffer)(&mut minor, buf) };
        out
    }

    /// All texts `gss_display_status` has for one code, joined.
    fn status_text(&self, code: u32, kind: c_int) -> String {
        let mech = oid(OID_KRB5_MECH);
        let mut message_context = 0u32;
        let mut parts = Vec::new();
        for _ in 0..8 {
            let mut minor = 0;
            let mut buf = GssBufferDesc::empty();
            // SAFETY: all out-pointers are valid locals; `mech` outlives the call.
            let major = unsafe {
                (self.f.display_status)(
                    &mut minor,
                    code,
                    kind,
                    &mech,
                    &mut message_context,
                    &mut buf,
                )
            };
            if major & ERROR_MASK != 0 {
                break;
            }
            let text = String::from_utf8_lossy(&self.take_buffer(&mut buf))
                .trim()
                .to_string();
            if !text.is_empty() {
                parts.push(text);
            }
            if message_context == 0 {
                break;
            }
        }
        parts.join("; ")
    }

    /// Turns a failed call's status into an error, with MIT's texts. Must run on the thread that
    /// made the call, right after it: MIT keeps the detailed minor text per thread.
    fn error(&self, op: &'static str, major: u32, minor: u32) -> GssError {
        let major_text = if major & ERROR_MASK != 0 {
            self.status_text(major & ERROR_MASK, C_GSS_CODE)
        } else {
            String::new()
        };
        let minor_text = if minor != 0 {
            self.status_text(minor, C_MECH_CODE)
        } else {
            String::new()
        };
        GssError::from_status(op, major, minor, major_text, minor_text)
    }

    fn check(&self, op: &'static str, major: u32, minor: u32) -> Result<u32, GssError> {
        if major & ERROR_MASK != 0 {
            Err(self.error(op, major, minor))
        } else {
            Ok(major)
        }
    }
}

/// How a name string is to be read.
#[derive(Debug, Clone, Copy)]
pub(crate) enum NameType {
    /// `service@host`.
    HostBased,
    /// A Kerberos principal, `primary[/instance][@REALM]`.
    Krb5Principal,
}

/// An imported name (`gss_name_t`), released on drop.
pub(crate) struct Name {
    lib: Arc<Library>,
    raw: GssName,
}

// SAFETY: a gss_name_t is an immutable heap object once imported; MIT has no thread affinity for
// it, and we only read it (display) or pass it by value to calls that do not modify it.
unsafe impl Send for Name {}
// SAFETY: as above: every use through `&Name` is read-only.
unsafe impl Sync for Name {}

impl Name {
    pub(crate) fn import(lib: &Arc<Library>, text: &str, kind: NameType) -> Result<Name, GssError> {
        let name_type = oid(match kind {
            NameType::HostBased => OID_NT_HOSTBASED_SERVICE,
            NameType::Krb5Principal => OID_KRB5_NT_PRINCIPAL_NAME,
        });
        let input = GssBufferDesc::borrowing(text.as_bytes());
        let mut raw: GssName = ptr::null_mut();
        let mut minor = 0;
        // SAFETY: `input` borrows `text`, `name_type` is a valid OID; both outlive the call;
        // MIT copies what it keeps. `raw` receives a new name we own.
        let major = unsafe { (lib.f.import_name)(&mut minor, &input, &name_type, &mut raw) };
        lib.check("gss_import_name", major, minor)?;
        Ok(Name {
            lib: lib.clone(),
            raw,
        })
    }

    /// The name as text (e.g. `hbclient@EXAMPLE.COM`).
    pub(crate) fn display(&self) -> Result<String, GssError> {
        let mut buf = GssBufferDesc::empty();
        let mut minor = 0;
        // SAFETY: `self.raw` is a live name; the out-buffer is ours to release; the OID
        // out-pointer may be NULL.
        let major =
            unsafe { (self.lib.f.display_name)(&mut minor, self.raw, &mut buf, ptr::null_mut()) };
        self.lib.check("gss_display_name", major, minor)?;
        Ok(String::from_utf8_lossy(&self.lib.take_buffer(&mut buf)).into_owned())
    }
}

impl Drop for Name {
    fn drop(&mut self) {
        if !self.raw.is_null() {
            let mut minor = 0;
            // SAFETY: we own this name and release it once.
            unsafe { (self.lib.f.release_name)(&mut minor, &mut self.raw) };
        }
    }
}

/// What a credential is for.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Usage {
    Initiate,
    Accept,
}

/// A credential handle (`gss_cred_id_t`), released on drop.
pub(crate) struct Cred {
    lib: Arc<Library>,
    raw: GssCred,
}

// SAFETY: MIT's krb5 credential records carry their own mutex (`krb5_gss_cred_id_rec.lock`) and
// are made for use by several contexts on several threads.
unsafe impl Send for Cred {}
// SAFETY: as above.
unsafe impl Sync for Cred {}

impl Cred {
    /// `gss_acquire_cred` (no store) or `gss_acquire_cred_from` (with `store` entries), for the
    /// krb5 mechanism only.
    pub(crate) fn acquire(
        lib: &Arc<Library>,
        name: Option<&Name>,
        usage: Usage,
        store: &[(&str, &str)],
    ) -> Result<Cred, GssError> {
        let mut mech = oid(OID_KRB5_MECH);
        let mechs = GssOidSetDesc {
            count: 1,
            elements: &mut mech,
        };
        let usage = match usage {
            Usage::Initiate => C_INITIATE,
            Usage::Accept => C_ACCEPT,
        };
        let desired = name.map_or(ptr::null_mut(), |n| n.raw);
        let mut raw: GssCred = ptr::null_mut();
        let mut minor = 0;
        let (op, major) = if store.is_empty() {
            // SAFETY: `desired` is NULL or a live name, `mechs` points at `mech`, both outlive
            // the call; actual_mechs and time_rec may be NULL.
            let major = unsafe {
                (lib.f.acquire_cred)(
                    &mut minor,
                    desired,
                    C_INDEFINITE,
                    &mechs,
                    usage,
                    &mut raw,
                    ptr::null_mut(),
                    ptr::null_mut(),
                )
            };
            ("gss_acquire_cred", major)
        } else {
            let mut strings = Vec::with_capacity(store.len() * 2);
            for (k, v) in store {
                for s in [k, v] {
                    strings.push(CString::new(*s).map_err(|_| {
                        GssError::new(
                            GssErrorKind::InvalidInput,
                            format!("credential store entry {k}={v:?} contains a NUL byte"),
                        )
                    })?);
                }
            }
            let elements: Vec<GssKeyValueElement> = strings
                .chunks(2)
                .map(|kv| GssKeyValueElement {
                    key: kv[0].as_ptr(),
                    value: kv[1].as_ptr(),
                })
                .collect();
            let set = GssKeyValueSet {
                count: elements.len() as u32,
                elements: elements.as_ptr(),
            };
            // SAFETY: as above; `set` points at `elements`, which point into `strings`; all
            // live until the call returns, and MIT copies the store values it keeps.
            let major = unsafe {
                (lib.f.acquire_cred_from)(
                    &mut minor,
                    desired,
                    C_INDEFINITE,
                    &mechs,
                    usage,
                    &set,
                    &mut raw,
                    ptr::null_mut(),
                    ptr::null_mut(),
                )
            };
            ("gss_acquire_cred_from", major)
        };
        lib.check(op, major, minor)?;
        Ok(Cred {
            lib: lib.clone(),
            raw,
        })
    }
}

impl Drop for Cred {
    fn drop(&mut self) {
        if !self.raw.is_null() {
            let mut minor = 0;
            // SAFETY: we own this credential and release it once.
            unsafe { (self.lib.f.release_cred)(&mut minor, &mut self.raw) };
        }
    }
}

/// What one establishment step produced.
pub(crate) struct Step {
    pub(crate) output: Vec<u8>,
    pub(crate) complete: bool,
    pub(crate) flags: u32,
}

/// A security context (`gss_ctx_id_t`), deleted on drop. Starts empty (GSS_C_NO_CONTEXT).
pub(crate) struct Ctx {
    lib: Arc<Library>,
    raw: GssCtx,
}

// SAFETY: a context may move between threads; MIT has no thread affinity for it. It is not Sync:
// wrap/unwrap mutate its sequence state and need `&mut self`.
unsafe impl Send for Ctx {}

impl Ctx {
    pub(crate) fn new(lib: &Arc<Library>) -> Ctx {
        Ctx {
            lib: lib.clone(),
            raw: ptr::null_mut(),
        }
    }

    /// One `gss_init_sec_context` call for the krb5 mechanism.
    pub(crate) fn init_step(
        &mut self,
        cred: &Cred,
        target: &Name,
        flags: u32,
        input: &[u8],
    ) -> Result<Step, GssError> {
        let mech = oid(OID_KRB5_MECH);
        let input_buf = GssBufferDesc::borrowing(input);
        let input_ptr: *const GssBufferDesc = if input.is_empty() {
            ptr::null()
        } else {
            &input_buf
        };
        let mut output = GssBufferDesc::empty();
        let mut ret_flags = 0;
        let mut minor = 0;
        // SAFETY: `cred`, `target` and `self.raw` (NULL on the first call, then the handle MIT
        // gave us) are live; input and mech borrow locals that outlive the call; the output
        // buffer is released by `take_buffer`; unused out-pointers are NULL, as allowed.
        let major = unsafe {
            (self.lib.f.init_sec_context)(
                &mut minor,
                cred.raw,
                &mut self.raw,
                target.raw,
                &mech,
                flags,
                0,
                ptr::null(),
                input_ptr,
                ptr::null_mut(),
                &mut output,
                &mut ret_flags,
                ptr::null_mut(),
            )
        };
        let token = self.lib.take_buffer(&mut output);
        let major = self.lib.check("gss_init_sec_context", major, minor)?;
        Ok(Step {
            output: token,
            complete: major & S_CONTINUE_NEEDED == 0,
            flags: ret_flags,
        })
    }

    /// One `gss_accept_sec_context` call; also returns the initiator's name once known.
    pub(crate) fn accept_step(
        &mut self,
        cred: &Cred,
        input: &[u8],
    ) -> Result<(Step, Option<Name>), GssError> {
        let input_buf = GssBufferDesc::borrowing(input);
        let mut output = GssBufferDesc::empty();
        let mut src: GssName = ptr::null_mut();
        let mut ret_flags = 0;
        let mut minor = 0;
        // SAFETY: as for init_step; `src` receives a name we own (wrapped below, released on
        // drop); delegated credentials are not requested (NULL).
        let major = unsafe {
            (self.lib.f.accept_sec_context)(
                &mut minor,
                &mut self.raw,
                cred.raw,
                &input_buf,
                ptr::null(),
                &mut src,
                ptr::null_mut(),
                &mut output,
                &mut ret_flags,
                ptr::null_mut(),
                ptr::null_mut(),
            )
        };
        let token = self.lib.take_buffer(&mut output);
        let src = (!src.is_null()).then(|| Name {
            lib: self.lib.clone(),
            raw: src,
        });
        let major = self.lib.check("gss_accept_sec_context", major, minor)?;
        Ok((
            Step {
                output: token,
                complete: major & S_CONTINUE_NEEDED == 0,
                flags: ret_flags,
            },
            src,
        ))
    }

    fn require_open(&self, op: &'static str) -> Result<(), GssError> {
        if self.raw.is_null() {
            return Err(GssError::new(
                GssErrorKind::InvalidInput,
                format!("{op}: the security context is not established"),
            ));
        }
        Ok(())
    }

    /// The initiator's and the acceptor's names.
    pub(crate) fn names(&self) -> Result<(Name, Name), GssError> {
        self.require_open("gss_inquire_context")?;
        let mut src: GssName = ptr::null_mut();
        let mut targ: GssName = ptr::null_mut();
        let mut minor = 0;
        // SAFETY: `self.raw` is a live context; the two names are new objects we own; every
        // other out-pointer may be NULL.
        let major = unsafe {
            (self.lib.f.inquire_context)(
                &mut minor,
                self.raw,
                &mut src,
                &mut targ,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
            )
        };
        let src = Name {
            lib: self.lib.clone(),
            raw: src,
        };
        let targ = Name {
            lib: self.lib.clone(),
            raw: targ,
        };
        self.lib.check("gss_inquire_context", major, minor)?;
        Ok((src, targ))
    }

    /// Seconds the context stays valid (`GSS_C_INDEFINITE` for ever; 0 once expired).
    pub(crate) fn lifetime(&self) -> Result<u32, GssError> {
        self.require_open("gss_inquire_context")?;
        let mut lifetime = 0u32;
        let mut minor = 0;
        // SAFETY: `self.raw` is a live context; names are not asked for (NULL), only the
        // lifetime, written to a local.
        let major = unsafe {
            (self.lib.f.inquire_context)(
                &mut minor,
                self.raw,
                ptr::null_mut(),
                ptr::null_mut(),
                &mut lifetime,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
            )
        };
        match self.lib.check("gss_inquire_context", major, minor) {
            Ok(_) => Ok(lifetime),
            // An expired context still answers with its (zero) lifetime.
            Err(e) if e.is_expired() => Ok(0),
            Err(e) => Err(e),
        }
    }

    /// `gss_wrap` with the default QoP.
    pub(crate) fn wrap(&mut self, conf: bool, data: &[u8]) -> Result<Vec<u8>, GssError> {
        self.require_open("gss_wrap")?;
        let input = GssBufferDesc::borrowing(data);
        let mut output = GssBufferDesc::empty();
        let mut conf_state: c_int = 0;
        let mut minor = 0;
        // SAFETY: live context; `input` borrows `data`; the output is released by take_buffer.
        let major = unsafe {
            (self.lib.f.wrap)(
                &mut minor,
                self.raw,
                c_int::from(conf),
                0,
                &input,
                &mut conf_state,
                &mut output,
            )
        };
        let token = self.lib.take_buffer(&mut output);
        self.lib.check("gss_wrap", major, minor)?;
        if conf && conf_state == 0 {
            return Err(GssError::new(
                GssErrorKind::Protocol,
                "gss_wrap: confidentiality was asked for but the context does not provide it",
            ));
        }
        Ok(token)
    }

    /// `gss_unwrap`; also says whether the message was encrypted. Replayed, old or out-of-order
    /// tokens are errors.
    pub(crate) fn unwrap(&mut self, data: &[u8]) -> Result<(Vec<u8>, bool), GssError> {
        self.require_open("gss_unwrap")?;
        let input = GssBufferDesc::borrowing(data);
        let mut output = GssBufferDesc::empty();
        let mut conf_state: c_int = 0;
        let mut minor = 0;
        // SAFETY: live context; `input` borrows `data`; the output is released by
        // take_buffer; the QoP out-pointer may be NULL.
        let major = unsafe {
            (self.lib.f.unwrap)(
                &mut minor,
                self.raw,
                &input,
                &mut output,
                &mut conf_state,
                ptr::null_mut(),
            )
        };
        let plain = self.lib.take_buffer(&mut output);
        let major = self.lib.check("gss_unwrap", major, minor)?;
        if major & S_SEQUENCE_PROBLEMS != 0 {
            return Err(GssError::from_status(
                "gss_unwrap",
                major,
                0,
                "message replayed, out of order, or missing (GSS sequence check)".into(),
                String::new(),
            ));
        }
        Ok((plain, conf_state != 0))
    }
}

impl Drop for Ctx {
    fn drop(&mut self) {
        if !self.raw.is_null() {
            let mut minor = 0;
            // SAFETY: we own this context and delete it once; no output token is wanted.
            unsafe { (self.lib.f.delete_sec_context)(&mut minor, &mut self.raw, ptr::null_mut()) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_layouts_match_mit_on_this_target() {
        // gss_OID_desc: OM_uint32 then a pointer (padded); gss_buffer_desc: size_t, pointer.
        assert_eq!(
            std::mem::size_of::<GssOidDesc>(),
            2 * std::mem::size_of::<usize>()
        );
        assert_eq!(
            std::mem::size_of::<GssBufferDesc>(),
            2 * std::mem::size_of::<usize>()
        );
        assert_eq!(
            std::mem::size_of::<GssKeyValueElement>(),
            2 * std::mem::size_of::<usize>()
        );
    }
}

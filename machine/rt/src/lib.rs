//! The runtime library of compiled programs: the part of every executable
//! `deepcps compile` builds that is written in Rust, so that it prints
//! what `deepcps run` prints with the machine's own code.
//!
//! A compiled program calls it on its cold paths only: to render the report
//! of a runtime error (with the call sites its traced run recorded), and
//! to print a value that holds a lambda (an exit value, or a value an error
//! message quotes). The work is done by
//! [`deepcps_machine::compile::native`]; this crate is the C interface to
//! it, the one place of the workspace with `unsafe` code: it reads what C
//! hands over through raw pointers.
//!
//! Every function returns a text allocated here, to be freed with
//! [`deepcps_rt_free`], or NULL when it cannot (an image that does not
//! decode, a panic): the program then prints a plainer form.
#![allow(unsafe_code)]

use std::ffi::{c_char, c_int, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::null_mut;
use std::sync::Mutex;

use deepcps_machine::compile::native::{Failure, Native, Shown};

/// The image last decoded, by the address of its bytes: a program asks
/// about one image, and getting its term back may mean staging it again.
static LAST: Mutex<Option<(usize, Native)>> = Mutex::new(None);

/// Runs `f` on the [`Native`] of the image at `image` (`len` bytes).
///
/// # Safety
/// `image` points to `len` readable bytes that stay put while the program
/// runs (the program's image is a static array).
unsafe fn with_native<T>(image: *const c_char, len: usize, f: impl FnOnce(&mut Native) -> Option<T>) -> Option<T> {
    if image.is_null() {
        return None;
    }
    let mut last = LAST.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let key = image as usize;
    if last.as_ref().is_none_or(|(k, _)| *k != key) {
        // SAFETY: the caller promises `len` readable bytes at `image`.
        let bytes = unsafe { std::slice::from_raw_parts(image.cast::<u8>(), len) };
        *last = Some((key, Native::new(bytes).ok()?));
    }
    last.as_mut().and_then(|(_, n)| f(n))
}

/// `text` handed to C, or NULL if it holds a NUL byte.
fn to_c(text: String) -> *mut c_char {
    CString::new(text).map_or(null_mut(), CString::into_raw)
}

/// The report of a runtime error, as `deepcps run` renders it: at error
/// site `site` of the image, of the kind numbered `kind`, with `message`
/// and `label`, at the source of lifted lambda `lambda` unless it is -1;
/// with the call sites of `steps` (`n_steps` sites of the
/// traced run's calls, first to last) if `traced` is not 0; coloured if
/// `color` is not 0.
///
/// # Safety
/// `image` points to `image_len` bytes that stay put; `message` and
/// `label` are NUL-terminated; `steps` points to `n_steps` numbers (or is
/// NULL when `n_steps` is 0).
#[no_mangle]
pub unsafe extern "C" fn deepcps_rt_report(
    image: *const c_char,
    image_len: usize,
    site: u32,
    kind: u32,
    lambda: c_int,
    message: *const c_char,
    label: *const c_char,
    steps: *const u32,
    n_steps: usize,
    traced: c_int,
    color: c_int,
) -> *mut c_char {
    let run = || {
        if message.is_null() || label.is_null() {
            return None;
        }
        // SAFETY: the caller promises NUL-terminated texts.
        let (message, label) = unsafe { (CStr::from_ptr(message), CStr::from_ptr(label)) };
        let (message, label) = (message.to_string_lossy(), label.to_string_lossy());
        let steps: &[u32] = if steps.is_null() || n_steps == 0 {
            &[]
        } else {
            // SAFETY: the caller promises `n_steps` numbers at `steps`.
            unsafe { std::slice::from_raw_parts(steps, n_steps) }
        };
        let steps = (traced != 0).then_some(steps);
        // SAFETY: passed on from the caller's promise.
        unsafe {
            with_native(image, image_len, |n| {
                let failure = Failure {
                    site: site as usize,
                    kind: kind as usize,
                    lambda: usize::try_from(lambda).ok(),
                    message: &message,
                    label: &label,
                };
                n.report(&failure, steps, color != 0).ok()
            })
        }
    };
    catch_unwind(AssertUnwindSafe(run)).ok().flatten().map_or(null_mut(), to_c)
}

/// The value serialized in the `len` bytes at `value` (by the program's
/// `serialize`), printed as `deepcps run` prints an exit value, or, if
/// `short_form` is not 0, as an error message quotes a value.
///
/// # Safety
/// `image` points to `image_len` bytes that stay put; `value` points to
/// `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn deepcps_rt_value(
    image: *const c_char,
    image_len: usize,
    value: *const u8,
    len: usize,
    short_form: c_int,
) -> *mut c_char {
    let run = || {
        if value.is_null() {
            return None;
        }
        // SAFETY: the caller promises `len` bytes at `value`.
        let bytes = unsafe { std::slice::from_raw_parts(value, len) };
        let how = if short_form != 0 { Shown::Short } else { Shown::Exit };
        // SAFETY: passed on from the caller's promise.
        unsafe { with_native(image, image_len, |n| n.value_text(bytes, how).ok()) }
    };
    catch_unwind(AssertUnwindSafe(run)).ok().flatten().map_or(null_mut(), to_c)
}

/// Frees a text returned by this library.
///
/// # Safety
/// `text` was returned by a function of this library and is not freed yet
/// (or is NULL).
#[no_mangle]
pub unsafe extern "C" fn deepcps_rt_free(text: *mut c_char) {
    if !text.is_null() {
        // SAFETY: the caller promises a text made by `CString::into_raw`.
        drop(unsafe { CString::from_raw(text) });
    }
}

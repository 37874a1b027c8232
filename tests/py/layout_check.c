/* Prints, from one CPython version's own (internal) headers, every offset that
 * src/recorder/pyframes.c has hard-coded for that version, in the format of
 * pyframes_layout(): "name value" lines. tests/e2e/t090_pyframes.sh builds it against
 * each installed version's headers and diffs the two, so a wrong table entry is caught
 * on any machine that has the headers (the recorder itself must not need them).
 *
 * Built with -DPy_BUILD_CORE -I<include/python3.X> -I<include/python3.X/internal>. */
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#if PY_VERSION_HEX >= 0x030B0000
#include "internal/pycore_frame.h"
#include "internal/pycore_code.h"
#else
#include <frameobject.h>
#endif
#include "internal/pycore_runtime.h"
#include "internal/pycore_interp.h"
#if PY_VERSION_HEX >= 0x030C0000
#include "internal/pycore_gil.h"
#endif

#define P(name, val) printf("%s %ld\n", name, (long)(val))

/* bit position of a one-bit or the lowest bit of a multi-bit field of the unicode state */
static int bitpos(unsigned state)
{
	for (int i = 0; i < 32; i++)
		if (state & (1u << i))
			return i;
	return -1;
}

int main(void)
{
	P("version", (PY_MAJOR_VERSION << 8) | PY_MINOR_VERSION);
	P("ob_type", offsetof(PyObject, ob_type));
	P("tp_name", offsetof(PyTypeObject, tp_name));
#if PY_VERSION_HEX >= 0x030D0000
	P("ts_frame", offsetof(PyThreadState, current_frame));
	P("cframe_current", -1);
#elif PY_VERSION_HEX >= 0x030B0000
	P("ts_frame", offsetof(PyThreadState, cframe));
	P("cframe_current", offsetof(_PyCFrame, current_frame));
#else
	P("ts_frame", offsetof(PyThreadState, frame));
	P("cframe_current", -1);
#endif
#if PY_VERSION_HEX >= 0x030B0000
#if PY_VERSION_HEX >= 0x030D0000
	P("fr_code", offsetof(_PyInterpreterFrame, f_executable));
	P("fr_instr", offsetof(_PyInterpreterFrame, instr_ptr));
#else
	P("fr_code", offsetof(_PyInterpreterFrame, f_code));
	P("fr_instr", offsetof(_PyInterpreterFrame, prev_instr));
#endif
	P("fr_previous", offsetof(_PyInterpreterFrame, previous));
	P("fr_owner", offsetof(_PyInterpreterFrame, owner));
	P("owner_generator", FRAME_OWNED_BY_GENERATOR);
#if PY_VERSION_HEX >= 0x030C0000
	P("owner_cstack", FRAME_OWNED_BY_CSTACK);
#else
	P("owner_cstack", -1);
#endif
	P("co_code_adaptive", offsetof(PyCodeObject, co_code_adaptive));
	P("co_firsttraceable", offsetof(PyCodeObject, _co_firsttraceable));
	P("co_qualname", offsetof(PyCodeObject, co_qualname));
#else
	P("fr_code", offsetof(PyFrameObject, f_code));
	P("fr_instr", offsetof(PyFrameObject, f_lasti));
	P("fr_previous", offsetof(PyFrameObject, f_back));
	P("fr_owner", -1);
	P("owner_generator", -1);
	P("owner_cstack", -1);
	P("co_code_adaptive", -1);
	P("co_firsttraceable", -1);
	P("co_qualname", offsetof(PyCodeObject, co_name)); /* 3.10 has no co_qualname */
#endif
	P("co_filename", offsetof(PyCodeObject, co_filename));
	P("co_firstlineno", offsetof(PyCodeObject, co_firstlineno));
	P("co_linetable", offsetof(PyCodeObject, co_linetable));
	P("bytes_size", offsetof(PyVarObject, ob_size));
	P("bytes_sval", offsetof(PyBytesObject, ob_sval));
	P("u_length", offsetof(PyASCIIObject, length));
	P("u_state", offsetof(PyASCIIObject, state));
	P("u_ascii_size", sizeof(PyASCIIObject));
	P("u_compact_size", sizeof(PyCompactUnicodeObject));
	{
		PyASCIIObject a;
		unsigned st;
		memset(&a, 0, sizeof(a));
		a.state.kind = 7;
		memcpy(&st, &a.state, sizeof(st));
		P("st_kind_shift", bitpos(st));
		memset(&a, 0, sizeof(a));
		a.state.compact = 1;
		memcpy(&st, &a.state, sizeof(st));
		P("st_compact_bit", bitpos(st));
		memset(&a, 0, sizeof(a));
		a.state.ascii = 1;
		memcpy(&st, &a.state, sizeof(st));
		P("st_ascii_bit", bitpos(st));
#if PY_VERSION_HEX < 0x030C0000
		memset(&a, 0, sizeof(a));
		a.state.ready = 1;
		memcpy(&st, &a.state, sizeof(st));
		P("st_ready_bit", bitpos(st));
#else
		P("st_ready_bit", -1);
#endif
	}
	P("ts_interp", offsetof(PyThreadState, interp));
#if PY_VERSION_HEX >= 0x030C0000
	P("rt_ceval_gil", -1);
	P("interp_ceval_gil", offsetof(PyInterpreterState, ceval.gil));
#else
	P("rt_ceval_gil", offsetof(_PyRuntimeState, ceval.gil));
	P("interp_ceval_gil", -1);
#endif
	P("gil_last_holder", offsetof(struct _gil_runtime_state, last_holder));
	P("gil_locked", offsetof(struct _gil_runtime_state, locked));
	P("gil_size", sizeof(struct _gil_runtime_state));
	P("rt_interp_head", offsetof(_PyRuntimeState, interpreters.head));
	P("interp_next", offsetof(PyInterpreterState, next));
#if PY_VERSION_HEX >= 0x030B0000
	P("interp_threads_head", offsetof(PyInterpreterState, threads.head));
	P("ts_native_tid", offsetof(PyThreadState, native_thread_id));
#else
	P("interp_threads_head", offsetof(PyInterpreterState, tstate_head));
	P("ts_native_tid", -1);
#endif
	P("ts_next", offsetof(PyThreadState, next));
	P("ts_thread_id", offsetof(PyThreadState, thread_id));
	P("interp_gc_collecting", offsetof(PyInterpreterState, gc.collecting));
#if PY_VERSION_HEX >= 0x030D0000
	/* where each offset the recorder takes from _PyRuntime.debug_offsets sits in it */
	P("dbg_version", offsetof(_Py_DebugOffsets, version));
	P("dbg_free_threaded", offsetof(_Py_DebugOffsets, free_threaded));
	P("dbg_rt_size", offsetof(_Py_DebugOffsets, runtime_state.size));
	P("dbg_interp_size", offsetof(_Py_DebugOffsets, interpreter_state.size));
	P("dbg_rt_interp_head", offsetof(_Py_DebugOffsets, runtime_state.interpreters_head));
	P("dbg_interp_next", offsetof(_Py_DebugOffsets, interpreter_state.next));
	P("dbg_interp_threads_head", offsetof(_Py_DebugOffsets, interpreter_state.threads_head));
	P("dbg_interp_ceval_gil", offsetof(_Py_DebugOffsets, interpreter_state.ceval_gil));
	P("dbg_ts_next", offsetof(_Py_DebugOffsets, thread_state.next));
	P("dbg_ts_interp", offsetof(_Py_DebugOffsets, thread_state.interp));
	P("dbg_ts_thread_id", offsetof(_Py_DebugOffsets, thread_state.thread_id));
	P("dbg_ts_native_tid", offsetof(_Py_DebugOffsets, thread_state.native_thread_id));
	P("dbg_interp_gc", offsetof(_Py_DebugOffsets, interpreter_state.gc));
	P("dbg_gc_collecting", offsetof(_Py_DebugOffsets, gc.collecting));
	P("dbg_ts_size", offsetof(_Py_DebugOffsets, thread_state.size));
	P("dbg_ts_current_frame", offsetof(_Py_DebugOffsets, thread_state.current_frame));
	P("dbg_fr_size", offsetof(_Py_DebugOffsets, interpreter_frame.size));
	P("dbg_fr_previous", offsetof(_Py_DebugOffsets, interpreter_frame.previous));
	P("dbg_fr_executable", offsetof(_Py_DebugOffsets, interpreter_frame.executable));
	P("dbg_fr_instr_ptr", offsetof(_Py_DebugOffsets, interpreter_frame.instr_ptr));
	P("dbg_fr_owner", offsetof(_Py_DebugOffsets, interpreter_frame.owner));
	P("dbg_co_size", offsetof(_Py_DebugOffsets, code_object.size));
	P("dbg_co_filename", offsetof(_Py_DebugOffsets, code_object.filename));
	P("dbg_co_qualname", offsetof(_Py_DebugOffsets, code_object.qualname));
	P("dbg_co_linetable", offsetof(_Py_DebugOffsets, code_object.linetable));
	P("dbg_co_firstlineno", offsetof(_Py_DebugOffsets, code_object.firstlineno));
	P("dbg_co_code_adaptive", offsetof(_Py_DebugOffsets, code_object.co_code_adaptive));
	P("dbg_ob_type", offsetof(_Py_DebugOffsets, pyobject.ob_type));
	P("dbg_bytes_size", offsetof(_Py_DebugOffsets, bytes_object.ob_size));
	P("dbg_bytes_sval", offsetof(_Py_DebugOffsets, bytes_object.ob_sval));
	P("dbg_u_state", offsetof(_Py_DebugOffsets, unicode_object.state));
	P("dbg_u_length", offsetof(_Py_DebugOffsets, unicode_object.length));
	P("dbg_u_ascii_size", offsetof(_Py_DebugOffsets, unicode_object.asciiobject_size));
#endif
	return 0;
}

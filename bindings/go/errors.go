package rocksfilter

/*
#include <stdlib.h>
#include "rocksfilter.h"
*/
import "C"

import (
	"errors"
	"strconv"
)

// Status is the result code of a failed C call (rocksfilter_status).
type Status int

// Status values, mirroring rocksfilter_status.
const (
	StatusOK              Status = 0
	StatusInvalidArgument Status = 1 // unusable argument: bad bits/key, policy, offsets, closed handle
	StatusCorruption      Status = 2 // the bytes are not a valid block or file
	StatusNotSupported    Status = 3 // valid input this version does not handle
	StatusIOError         Status = 4 // the file could not be read
	StatusNotFound        Status = 5 // e.g. no full filter in an SST
	StatusInternal        Status = 6 // a bug in rocksfilter (a caught panic)
)

// String returns the status name, e.g. "invalid argument".
func (s Status) String() string {
	switch s {
	case StatusOK:
		return "ok"
	case StatusInvalidArgument:
		return "invalid argument"
	case StatusCorruption:
		return "corruption"
	case StatusNotSupported:
		return "not supported"
	case StatusIOError:
		return "I/O error"
	case StatusNotFound:
		return "not found"
	case StatusInternal:
		return "internal error"
	}
	return "Status(" + strconv.Itoa(int(s)) + ")"
}

// Error is the error returned by this package: the C library's status and
// its message, which says what was wrong and where.
//
// Compare with the sentinels using [errors.Is]: errors.Is(err,
// ErrCorruption) holds for every *Error whose Status is StatusCorruption,
// whatever its message.
type Error struct {
	Status Status // never StatusOK
	Op     string // the Go function that failed, e.g. "Load"
	Msg    string // the C library's message (for OpenSSTReaderAt, then what ReadAt returned); may be empty

	wrapped error // see Unwrap
}

// Error formats the error as "rocksfilter: Op: Msg", or with the status
// name in place of an empty Msg. (The C library's messages start with the
// status name, e.g. "corruption: ...".)
func (e *Error) Error() string {
	s := "rocksfilter: "
	if e.Op != "" {
		s += e.Op + ": "
	}
	if e.Msg == "" {
		return s + e.Status.String()
	}
	return s + e.Msg
}

// Is reports whether target is the sentinel for e's status: a *Error with
// the same Status and no Op or Msg (such as [ErrNotFound]).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Op == "" && t.Msg == "" && t.wrapped == nil && t.Status == e.Status
}

// Unwrap returns the cause behind e, if any: [ErrClosed] for an error
// caused by a closed handle, for an [OpenSST] file that cannot be
// opened the *[io/fs.PathError] saying why (so errors.Is(err,
// [io/fs.ErrNotExist]) holds for a missing file), and for an
// [OpenSSTReaderAt] whose ReadAt failed what it returned (its error,
// [io.ErrUnexpectedEOF] for a short read, or its panic).
func (e *Error) Unwrap() error { return e.wrapped }

// Sentinels for errors.Is, one per status.
var (
	ErrInvalidArgument error = &Error{Status: StatusInvalidArgument}
	ErrCorruption      error = &Error{Status: StatusCorruption}
	ErrNotSupported    error = &Error{Status: StatusNotSupported}
	ErrIO              error = &Error{Status: StatusIOError} // the file could not be read
	ErrNotFound        error = &Error{Status: StatusNotFound}
	ErrInternal        error = &Error{Status: StatusInternal}
)

// ErrIOError is the former name of [ErrIO] (the same sentinel).
//
// Deprecated: use ErrIO.
var ErrIOError = ErrIO

// ErrClosed is matched (via errors.Is) by the error a method returns when
// called on a closed or zero handle. Such errors also match
// [ErrInvalidArgument].
var ErrClosed = errors.New("rocksfilter: handle is closed")

func closedError(op string) error {
	return &Error{Status: StatusInvalidArgument, Op: op, Msg: "invalid argument: handle is closed", wrapped: ErrClosed}
}

// statusError converts a C status and errptr message into an error,
// freeing the message. It returns nil for ROCKSFILTER_OK.
func statusError(op string, st C.rocksfilter_status, msg *C.char) error {
	var m string
	if msg != nil {
		m = C.GoString(msg)
		C.rocksfilter_string_free(msg)
	}
	if st == C.ROCKSFILTER_OK {
		return nil
	}
	return &Error{Status: Status(st), Op: op, Msg: m}
}

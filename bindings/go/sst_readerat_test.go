package rocksfilter_test

// OpenSSTReaderAt without RocksDB: argument errors, a file that is no SST,
// and every way a ReaderAt can fail its first read (sst_readerat_interop_test.go
// fails every read of real files).

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	rocksfilter "github.com/rocksfilter/rocksfilter/bindings/go"
)

// errInjected is the error faultReader's faults return or panic with.
var errInjected = errors.New("injected failure")

// readAtCall is one ReadAt call: len(p) bytes at off.
type readAtCall struct {
	off int64
	n   int
}

// faultReader reads data and records every call; call number failAt
// (1-based; 0 for none) is answered by fault instead.
type faultReader struct {
	data   []byte
	failAt int
	fault  func(p []byte, off int64, data []byte) (int, error)
	calls  []readAtCall
}

func (f *faultReader) ReadAt(p []byte, off int64) (int, error) {
	f.calls = append(f.calls, readAtCall{off, len(p)})
	if len(f.calls) == f.failAt {
		return f.fault(p, off, f.data)
	}
	return bytes.NewReader(f.data).ReadAt(p, off)
}

// A readFault is one way a ReadAt call can fail: what it does, the
// status-independent cause the open's error must match (nil: none), and a
// text the error must contain.
type readFault struct {
	name  string
	fault func(p []byte, off int64, data []byte) (int, error)
	cause error
	text  string
}

var readFaults = []readFault{
	{"error", func(p []byte, off int64, data []byte) (int, error) { return 0, errInjected },
		errInjected, "returned 0 bytes and error: injected failure"},
	{"half_and_error", func(p []byte, off int64, data []byte) (int, error) {
		return copy(p[:len(p)/2], data[off:]), errInjected
	}, errInjected, "error: injected failure"},
	{"all_and_error", func(p []byte, off int64, data []byte) (int, error) {
		return copy(p, data[off:]), errInjected // every byte, but ReadAt says it failed
	}, errInjected, "error: injected failure"},
	{"short_no_error", func(p []byte, off int64, data []byte) (int, error) {
		return copy(p[:len(p)-1], data[off:]), nil
	}, io.ErrUnexpectedEOF, "bytes and no error: unexpected EOF"},
	{"short_eof", func(p []byte, off int64, data []byte) (int, error) {
		return copy(p[:len(p)/3], data[off:]), io.EOF
	}, io.ErrUnexpectedEOF, "bytes and EOF: unexpected EOF"},
	{"count_too_large", func(p []byte, off int64, data []byte) (int, error) {
		return len(p) + 1, nil
	}, nil, "returned n = "},
	{"panic_string", func(p []byte, off int64, data []byte) (int, error) { panic("injected panic") },
		nil, "panicked: injected panic"},
	{"panic_error", func(p []byte, off int64, data []byte) (int, error) { panic(errInjected) },
		errInjected, "panicked: injected failure"},
	{"panic_runtime_error", func(p []byte, off int64, data []byte) (int, error) {
		var m map[string]int
		m["x"] = 1 // assignment to entry in nil map
		return 0, nil
	}, nil, "panicked: assignment to entry in nil map"},
}

// checkFailedOpen checks that an open whose call number failAt met fault
// failed cleanly: no handle, an ErrIO *Error naming the call and wrapping
// the cause, and no ReadAt after the failed one.
func checkFailedOpen(t *testing.T, s *rocksfilter.SST, err error, r *faultReader, f readFault) {
	t.Helper()
	if s != nil {
		s.Close()
		t.Fatalf("%s at call %d: the open succeeded", f.name, r.failAt)
	}
	if len(r.calls) != r.failAt {
		t.Errorf("%s at call %d: %d ReadAt calls, want none after the failed one", f.name, r.failAt, len(r.calls))
	}
	var e *rocksfilter.Error
	if !errors.As(err, &e) || e.Status != rocksfilter.StatusIOError || !errors.Is(err, rocksfilter.ErrIO) ||
		e.Op != "OpenSSTReaderAt" {
		t.Fatalf("%s at call %d: %#v, want an OpenSSTReaderAt *Error matching ErrIO", f.name, r.failAt, err)
	}
	for _, other := range []error{rocksfilter.ErrCorruption, rocksfilter.ErrInvalidArgument, rocksfilter.ErrInternal} {
		if errors.Is(err, other) {
			t.Errorf("%s at call %d: %v also matches %v", f.name, r.failAt, err, other)
		}
	}
	c := r.calls[r.failAt-1]
	msg := err.Error()
	for _, want := range []string{fmt.Sprintf("ReadAt of %d bytes at offset %d", c.n, c.off), f.text} {
		if !strings.Contains(msg, want) {
			t.Errorf("%s at call %d: error %q does not contain %q", f.name, r.failAt, msg, want)
		}
	}
	if f.cause != nil && !errors.Is(err, f.cause) {
		t.Errorf("%s at call %d: errors.Is(%v, %v) = false", f.name, r.failAt, err, f.cause)
	}
	if errors.Unwrap(err) == nil {
		t.Errorf("%s at call %d: the error wraps no cause", f.name, r.failAt)
	}
}

func TestOpenSSTReaderAtArguments(t *testing.T) {
	_, err := rocksfilter.OpenSSTReaderAt(nil, 100)
	wantStatus(t, "nil ReaderAt", err, rocksfilter.StatusInvalidArgument, rocksfilter.ErrInvalidArgument)
	r := &faultReader{data: make([]byte, 100)}
	_, err = rocksfilter.OpenSSTReaderAt(r, -1)
	wantStatus(t, "negative size", err, rocksfilter.StatusInvalidArgument, rocksfilter.ErrInvalidArgument)
	if len(r.calls) != 0 {
		t.Errorf("negative size: %d ReadAt calls", len(r.calls))
	}

	// A file that is no SST: read whole (it is below 64 KiB) in one call,
	// then refused as OpenSSTMemory refuses it.
	garbage := bytes.Repeat([]byte{0xab}, 4096)
	r = &faultReader{data: garbage}
	s, err := rocksfilter.OpenSSTReaderAt(r, int64(len(garbage)))
	if s != nil {
		t.Fatal("garbage opened")
	}
	wantStatus(t, "garbage file", err, rocksfilter.StatusCorruption, rocksfilter.ErrCorruption)
	if len(r.calls) != 1 || r.calls[0] != (readAtCall{0, len(garbage)}) {
		t.Errorf("garbage file: ReadAt calls %v, want one of the whole file", r.calls)
	}
	_, merr := rocksfilter.OpenSSTMemory(garbage)
	if merr == nil || strings.TrimPrefix(err.Error(), "rocksfilter: OpenSSTReaderAt: ") !=
		strings.TrimPrefix(merr.Error(), "rocksfilter: OpenSSTMemory: ") {
		t.Errorf("garbage: OpenSSTReaderAt says %q, OpenSSTMemory %q", err, merr)
	}

	// A size beyond the data: the ReaderAt hits EOF on the first read.
	r = &faultReader{data: garbage}
	_, err = rocksfilter.OpenSSTReaderAt(r, int64(len(garbage))+10)
	wantStatus(t, "size beyond the data", err, rocksfilter.StatusIOError, rocksfilter.ErrIO)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("size beyond the data: %v does not match io.ErrUnexpectedEOF", err)
	}
}

// TestOpenSSTReaderAtFirstReadFails: every fault of readFaults on the
// first (here the only) read gives a clean ErrIO error.
func TestOpenSSTReaderAtFirstReadFails(t *testing.T) {
	data := bytes.Repeat([]byte{0xab}, 4096)
	for _, f := range readFaults {
		r := &faultReader{data: data, failAt: 1, fault: f.fault}
		s, err := rocksfilter.OpenSSTReaderAt(r, int64(len(data)))
		checkFailedOpen(t, s, err, r, f)
		t.Logf("%s: %v", f.name, err)
	}
}

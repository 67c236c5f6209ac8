package athar

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Code classifies an error so that callers act on its kind, never on its text. The HTTP and
// GraphQL edges translate codes to statuses and extensions.code.
type Code string

// The error codes. Anything unclassified is Internal, and its details never leave the server.
const (
	Invalid         Code = "INVALID_ARGUMENT"
	NotFound        Code = "NOT_FOUND"
	Conflict        Code = "CONFLICT"
	Unauthenticated Code = "UNAUTHENTICATED"
	Internal        Code = "INTERNAL"
	// DeadlineExceeded and Cancelled say that the work stopped before it was done because
	// its context's deadline passed or it was cancelled: nothing is known of the answer (a
	// read cut short is never reported as an empty one). Both are retryable.
	DeadlineExceeded Code = "DEADLINE_EXCEEDED"
	Cancelled        Code = "CANCELLED"
	// Unavailable: what the operation needs is out of reach for now (the database holding
	// the log, or a replica still catching up with it). Nothing was changed by the failed
	// attempt unless the message says otherwise; the client may retry, later or elsewhere.
	Unavailable Code = "UNAVAILABLE"
	// TooLarge and UnsupportedMediaType are refusals of an HTTP request as a whole: its
	// body is over the limit, or of a type the endpoint does not read.
	TooLarge             Code = "REQUEST_TOO_LARGE"
	UnsupportedMediaType Code = "UNSUPPORTED_MEDIA_TYPE"
)

// Retryable reports whether a failure with this code says nothing about the request itself,
// so that the same request may succeed when sent again.
func (c Code) Retryable() bool {
	return c == DeadlineExceeded || c == Cancelled || c == Unavailable
}

// Stopped returns ctx's error, wrapped so that it says which operation it stopped, when ctx
// is done, and nil otherwise. ErrorCode classifies it as DeadlineExceeded or Cancelled.
// Readers call it after every scan: Cayley's iterators end early, without an error, once
// their context is done.
func Stopped(ctx context.Context, op string) error {
	err := ctx.Err()
	if err == nil {
		return nil
	}
	return E(op, contextCode(err), err, "stopped before it was done")
}

// contextCode returns DeadlineExceeded or Cancelled for an error wrapping a context's
// error, and "" for any other.
func contextCode(err error) Code {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return DeadlineExceeded
	case errors.Is(err, context.Canceled):
		return Cancelled
	}
	return ""
}

// Error is Athar's error: which operation failed, what kind of failure it is, and a message
// meant for the person who can fix it.
type Error struct {
	Code Code
	Op   string // the operation, e.g. "import narration:ahmad-208"
	Msg  string // for users: what was wrong and where
	Err  error  // the underlying cause, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Err != nil {
		if e.Msg != "" {
			b.WriteString(": ")
		}
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// E is the one way to build an *Error: op names the operation that failed (e.g. "delete
// narration:x"), code says what kind of failure it is, and args say what went wrong. args
// are an optional cause (an error, first) and then an optional message: a format string and
// its arguments, as for fmt.Sprintf. For example:
//
//	E("merge", Invalid, "keep and remove are the same id")
//	E("store", Unavailable, err)
//	E("restore", Invalid, err, "bad arguments")
//
// op is empty only where the caller's caller names the operation (a GraphQL field's error
// carries its path).
func E(op string, code Code, args ...any) *Error {
	e := &Error{Code: code, Op: op}
	if len(args) > 0 {
		if err, ok := args[0].(error); ok {
			e.Err = err
			args = args[1:]
		}
	}
	if len(args) > 0 {
		if format, ok := args[0].(string); ok {
			e.Msg = fmt.Sprintf(format, args[1:]...)
		} else {
			e.Msg = fmt.Sprint(args...)
		}
	}
	return e
}

// ErrorCode returns the code of the first *Error in err's chain, DeadlineExceeded or
// Cancelled for an error that wraps a context's error, Internal for any other non-nil
// error, and "" for nil. A *ValidationError is Invalid.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var ve *ValidationError
	if errors.As(err, &ve) {
		return Invalid
	}
	var e *Error
	if errors.As(err, &e) && e.Code != "" && e.Code != Internal {
		return e.Code
	}
	if c := contextCode(err); c != "" {
		return c
	}
	return Internal
}

// ErrorMessage returns the user-facing message of err: the message of an *Error or
// *ValidationError, and a generic text for anything internal, so that internals never leak.
func ErrorMessage(err error) string {
	var ve *ValidationError
	if errors.As(err, &ve) {
		return ve.Error()
	}
	var e *Error
	code := ErrorCode(err)
	switch {
	case code == DeadlineExceeded:
		return "stopped before it was done: the deadline passed (retry)"
	case code == Cancelled:
		return "stopped before it was done: cancelled"
	case errors.As(err, &e) && code != Internal:
		return e.Error()
	}
	return "internal error"
}

// Problem is one thing wrong with a document: where (the document, the field path such as
// claims[3].evidence, and the line when known) and what was expected.
type Problem struct {
	Path string // field path, e.g. "claims[3].evidence"; empty for the whole document
	Line int    // 1-based line in the source, 0 when unknown
	Msg  string
}

// ValidationError lists every problem found in one document. Nothing of a document that
// fails validation is stored.
type ValidationError struct {
	Document string // file name or "document" for API input
	Problems []Problem
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(e.Document)
		if p.Line > 0 {
			fmt.Fprintf(&b, ":%d", p.Line)
		}
		if p.Path != "" {
			b.WriteString(": ")
			b.WriteString(p.Path)
		}
		b.WriteString(": ")
		b.WriteString(p.Msg)
	}
	return b.String()
}

package graph

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/athar-hadith/athar/internal/athar"
)

// gqlgen's own codes, mapped to the API's where they mean the same; others (parse and
// validation failures, PERSISTED_QUERY_NOT_FOUND, which APQ clients act on) pass as they
// are.
var gqlgenCodes = map[string]string{
	"COMPLEXITY_LIMIT_EXCEEDED": CodeTooComplex,
}

// presenter turns every error into what a client may see: extensions.code always, the
// problems of a refused document, and never the details of an internal failure, which are
// logged here, once.
type presenter struct {
	logger  *slog.Logger
	timeout time.Duration
}

func (p presenter) present(ctx context.Context, err error) *gqlerror.Error {
	gqlErr := graphql.DefaultErrorPresenter(ctx, err)
	var ve *athar.ValidationError
	var le *limitError
	switch {
	case errors.As(err, &le) && le.deadline:
		// The budget stopped the fields left once the deadline passed: presented like any
		// other deadline, so that a mutation is DEADLINE_EXCEEDED (retryable), not a limit.
		return p.stopped(ctx, gqlErr, context.DeadlineExceeded)
	case errors.As(err, &le) && le.busy:
		return p.with(gqlErr, CodeUnavailable, le.msg, nil)
	case errors.As(err, &le):
		return p.with(gqlErr, CodeTooComplex, le.msg, nil)
	case errors.As(err, &ve):
		problems := make([]map[string]any, len(ve.Problems))
		for i, pr := range ve.Problems {
			problems[i] = map[string]any{"path": pr.Path, "line": pr.Line, "message": pr.Msg}
		}
		return p.with(gqlErr, string(athar.Invalid), ve.Error(), map[string]any{"problems": problems})
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		return p.stopped(ctx, gqlErr, err)
	case isAtharError(err):
		code := athar.ErrorCode(err)
		switch code {
		case athar.Internal:
			return p.internal(ctx, gqlErr, err)
		case athar.Unavailable:
			flagUnavailable(ctx) // answered with 503 (retryWriter)
		}
		var extra map[string]any
		if code.Retryable() {
			extra = map[string]any{"retryable": true}
		}
		return p.with(gqlErr, string(code), athar.ErrorMessage(err), extra)
	case errors.Is(err, graphql.ErrInvalidNull):
		// A non-null field resolved to null: a bug on this side, not the client's.
		return p.internal(ctx, gqlErr, err)
	case gqlErr.Err == nil:
		// Raised by gqlgen itself or by an extension: parsing, validation, limits, APQ.
		code, _ := gqlErr.Extensions["code"].(string)
		if mapped, ok := gqlgenCodes[code]; ok {
			code = mapped
		}
		if code == "" {
			code = string(athar.Invalid) // e.g. a malformed APQ extension
		}
		return p.with(gqlErr, code, gqlErr.Message, nil)
	default:
		return p.internal(ctx, gqlErr, err)
	}
}

// stopped presents work cut short by the request's deadline or its cancellation -- never
// as a verdict (a read cut short answers nothing). A query that runs out of time is
// QUERY_TOO_COMPLEX, as documented: asking for less is the remedy. A mutation gets
// DEADLINE_EXCEEDED (or CANCELLED) with extensions.retryable: it may have waited behind
// other writes, and sending it again may succeed (importing the same document twice
// changes nothing more).
func (p presenter) stopped(ctx context.Context, gqlErr *gqlerror.Error, err error) *gqlerror.Error {
	deadline := errors.Is(err, context.DeadlineExceeded)
	mutation := false
	if graphql.HasOperationContext(ctx) {
		op := graphql.GetOperationContext(ctx).Operation
		mutation = op != nil && op.Operation == ast.Mutation
	}
	switch {
	case deadline && !mutation:
		return p.with(gqlErr, CodeTooComplex, "the request took longer than its limit of "+p.timeout.String(), nil)
	case deadline:
		return p.with(gqlErr, string(athar.DeadlineExceeded), "the request's time limit of "+p.timeout.String()+" passed before it was done (other writes may have held it up); send it again", map[string]any{"retryable": true})
	default:
		return p.with(gqlErr, string(athar.Cancelled), "the request was cancelled before it was done", map[string]any{"retryable": true})
	}
}

func isAtharError(err error) bool {
	var e *athar.Error
	return errors.As(err, &e)
}

// with returns a copy of gqlErr (keeping its path and locations) with the message, the
// code and the extra extensions.
func (p presenter) with(gqlErr *gqlerror.Error, code, msg string, extra map[string]any) *gqlerror.Error {
	out := &gqlerror.Error{Message: msg, Path: gqlErr.Path, Locations: gqlErr.Locations, Rule: gqlErr.Rule}
	out.Extensions = map[string]any{"code": code}
	for k, v := range extra {
		out.Extensions[k] = v
	}
	return out
}

// internal logs err and returns an error that says nothing of it.
func (p presenter) internal(ctx context.Context, gqlErr *gqlerror.Error, err error) *gqlerror.Error {
	p.logger.ErrorContext(ctx, "graphql: internal error", "path", gqlErr.Path.String(), "err", err)
	return p.with(gqlErr, string(athar.Internal), "internal error", nil)
}

package main

import (
	"context"
	"log/slog"
	"strconv"
	"strings"

	"github.com/athar-hadith/athar/internal/app"
)

func cmdServe(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "serve", "[flags]", `Run the HTTP server: the explorer at /, GraphiQL at /graphiql, GraphQL at /graphql (POST;
GET for queries), exports at /export/{format} (see docs/exports.md), /healthz, /readyz and
Prometheus metrics at /metrics. An empty store is loaded with the embedded seeds first. With
--database (ATHAR_DATABASE) it runs as a replica following the shared log instead (see
docs/scale-out.md). SIGINT or SIGTERM stops it gracefully: in-flight requests finish (up to
10 s), then the store is closed. Go's collector runs with GOGC=300 and GOMEMLIMIT=768MiB
unless the environment sets them.`)
	store := storeFlag(fs, e)
	defAddr := e.getenv("ATHAR_ADDR")
	if defAddr == "" {
		defAddr = ":8080"
	}
	addr := fs.String("addr", defAddr, "listen address (env ATHAR_ADDR)")
	corsList := fs.String("cors", e.getenv("ATHAR_CORS_ORIGINS"), "comma-separated origins allowed to call the API from browsers, or * (env ATHAR_CORS_ORIGINS; default: same origin only)")
	database := addDatabaseFlags(fs, e)
	warmDefault := true
	if v := e.getenv("ATHAR_WARM"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return usageError("serve: ATHAR_WARM=%q: expected true or false", v)
		}
		warmDefault = b
	}
	warm := fs.Bool("warm", warmDefault, "read the store's read model into the page cache in the background at start, so that the first requests do not wait for the disk (env ATHAR_WARM)")
	if err := parse(fs, args); err != nil {
		return err
	}
	mode := database.mode(*store, true) // serve's replica lives in the configured store
	var origins []string
	for _, o := range strings.Split(*corsList, ",") {
		if o = strings.TrimSpace(o); o != "" {
			origins = append(origins, o)
		}
	}
	logger := slog.New(slog.NewJSONHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	defer tuneGC(e.getenv, logger, serveGCPercent, serveMemoryLimit)()
	defer serveStacks(logger)()
	return app.Serve(ctx, app.ServeConfig{
		Mode: mode, Addr: *addr, CORSOrigins: origins, Token: e.getenv("ATHAR_TOKEN"), Stderr: e.stderr,
		Logger: logger, NoWarm: !*warm,
	})
}

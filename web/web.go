// Package web holds Athar's pages for the browser: the explorer and the GraphQL query page,
// built by Vite from web/explorer (make web) into web/explorer/dist. The build is committed,
// so go build alone embeds it; CI rebuilds it and fails if the bytes differ.
package web

import (
	"embed"
	"io/fs"
)

// all: keeps files whose names start with _ or . (Vite may emit such chunks).
//
//go:embed all:explorer/dist
var dist embed.FS

// Explorer returns the built pages: index.html (the explorer), graphiql.html (GraphiQL) and
// assets/ (every script, style, font and worker they load; nothing comes from elsewhere).
// The pages use relative URLs: the server serves index.html at /, graphiql.html at
// /graphiql and assets/ at /assets/, beside /graphql and /export.
func Explorer() fs.FS {
	sub, err := fs.Sub(dist, "explorer/dist")
	if err != nil {
		// fs.Sub fails only for an invalid path, and this one is a constant.
		panic(err)
	}
	return sub
}

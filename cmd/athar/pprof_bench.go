//go:build bench

package main

import (
	"fmt"
	"net/http"
	"net/http/pprof"
	"os"
)

// startProfiler serves net/http/pprof's handlers at ATHAR_PPROF_ADDR (e.g.
// 127.0.0.1:6060) when it is set and the command is serve, in a build with the bench tag
// only: for taking heap, allocation and CPU profiles of a running server under load
// (docs/BENCHMARKS.md). athar bench passes its environment on to the server it starts.
func startProfiler(args []string, getenv func(string) string) {
	addr := getenv("ATHAR_PPROF_ADDR")
	if addr == "" || len(args) < 2 || args[1] != "serve" {
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	go func() {
		if err := http.ListenAndServe(addr, mux); err != nil {
			fmt.Fprintf(os.Stderr, "athar: ATHAR_PPROF_ADDR=%s: %v\n", addr, err)
		}
	}()
}

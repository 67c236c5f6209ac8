package testsupport

import "testing"

func TestListenAddr(t *testing.T) {
	cases := []struct {
		name, logs, want string
	}{
		{"none yet", `{"level":"INFO","msg":"empty store: loaded the seeds"}` + "\n", ""},
		{"json line", `{"level":"INFO","msg":"started"}` + "\n" + `{"time":"x","level":"INFO","msg":"listening","addr":"127.0.0.1:41234","store":"memory:"}` + "\n", "127.0.0.1:41234"},
		{"another message naming listening", `{"msg":"not listening","addr":"x"}` + "\n", ""},
		{"half a line", `{"msg":"listening","addr":"127.0.0`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := listenAddr(tc.logs); got != tc.want {
				t.Errorf("listenAddr = %q, want %q", got, tc.want)
			}
		})
	}
}

package main

import (
	"bytes"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestComposeFile checks docker-compose.yml as far as can be done without a Docker engine:
// the embedded service with no profile, and the postgres and cockroach profiles with their
// databases and two replicas each, every replica with a store volume of its own and a
// database URL naming a service of its profile.
func TestComposeFile(t *testing.T) {
	b, err := os.ReadFile("../../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Services map[string]struct {
			Image       string            `yaml:"image"`
			Build       string            `yaml:"build"`
			Profiles    []string          `yaml:"profiles"`
			Command     any               `yaml:"command"`
			Environment map[string]string `yaml:"environment"`
			Ports       []string          `yaml:"ports"`
			Volumes     []string          `yaml:"volumes"`
			DependsOn   any               `yaml:"depends_on"`
		} `yaml:"services"`
		Volumes map[string]any `yaml:"volumes"`
	}
	// Compose's interpolation, for the forms the file uses: ${VAR:-default} and $$.
	b = regexp.MustCompile(`\$\{[A-Z_]+:-([^}]*)\}`).ReplaceAll(b, []byte("$1"))
	b = bytes.ReplaceAll(b, []byte("$$"), []byte("$"))
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	profile := func(name string) string {
		s, ok := f.Services[name]
		if !ok {
			t.Fatalf("no service %s", name)
		}
		if len(s.Profiles) == 0 {
			return ""
		}
		return s.Profiles[0]
	}
	for name, want := range map[string]string{
		"athar": "", "postgres": "postgres", "athar-pg-1": "postgres", "athar-pg-2": "postgres",
		"crdb-1": "cockroach", "crdb-2": "cockroach", "crdb-3": "cockroach", "crdb-init": "cockroach",
		"athar-crdb-1": "cockroach", "athar-crdb-2": "cockroach",
	} {
		if got := profile(name); got != want {
			t.Errorf("service %s: profile %q, want %q", name, got, want)
		}
	}
	if f.Services["athar"].Environment["ATHAR_DATABASE"] != "" {
		t.Error("the default service must stay on the embedded store")
	}
	if img := f.Services["postgres"].Image; img != "postgres:15" {
		t.Errorf("postgres image %q", img)
	}
	ports, stores := map[string]string{}, map[string]string{}
	for name, s := range f.Services {
		for _, p := range s.Ports {
			host, _, _ := strings.Cut(p, ":")
			if other, dup := ports[host]; dup {
				t.Errorf("services %s and %s both publish port %s", name, other, host)
			}
			ports[host] = name
		}
		for _, v := range s.Volumes {
			vol, _, _ := strings.Cut(v, ":")
			if _, ok := f.Volumes[vol]; !ok {
				t.Errorf("service %s mounts undeclared volume %s", name, vol)
			}
		}
		var deps []string
		switch d := s.DependsOn.(type) {
		case []any:
			for _, x := range d {
				deps = append(deps, x.(string))
			}
		case map[string]any:
			for k := range d {
				deps = append(deps, k)
			}
		}
		for _, d := range deps {
			if _, ok := f.Services[d]; !ok || (profile(d) != "" && profile(d) != profile(name)) {
				t.Errorf("service %s depends on %s, which is not in its profile", name, d)
			}
		}
		if !strings.HasPrefix(name, "athar-") {
			continue
		}
		db := s.Environment["ATHAR_DATABASE"]
		u, err := url.Parse(db)
		if err != nil || u.Scheme != "postgres" {
			t.Errorf("replica %s: ATHAR_DATABASE %q is not a postgres:// URL", name, db)
			continue
		}
		if host := u.Hostname(); profile(host) != profile(name) {
			t.Errorf("replica %s: its database %s is not a service of profile %s", name, host, profile(name))
		}
		if !strings.HasPrefix(s.Environment["ATHAR_STORE"], "bbolt:/data") || len(s.Volumes) != 1 {
			t.Errorf("replica %s: the store must be bbolt on a volume of its own: %q %v", name, s.Environment["ATHAR_STORE"], s.Volumes)
			continue
		}
		vol, _, _ := strings.Cut(s.Volumes[0], ":")
		if other, dup := stores[vol]; dup {
			t.Errorf("replicas %s and %s share the store volume %s", name, other, vol)
		}
		stores[vol] = name
		if s.Image != "athar:latest" || s.Build != "." {
			t.Errorf("replica %s: image %q build %q", name, s.Image, s.Build)
		}
	}
	for _, n := range []string{"crdb-1", "crdb-2", "crdb-3"} {
		cmd, _ := f.Services[n].Command.(string)
		if !strings.Contains(cmd, "--join=crdb-1,crdb-2,crdb-3") || !slices.Contains(strings.Fields(cmd), "start") {
			t.Errorf("%s does not join the three-node cluster: %q", n, cmd)
		}
	}
}

package proc

import (
	"os"
	"slices"
	"strings"
)

// The environment of a pull request's code is built from an allow-list, not
// by removing known secrets: a runner holds credentials under any name
// (GH_PAT, NPM_AUTH, DATABASE_URL with a password in it), and no pattern
// recognises them all. A variable the tests need and the list lacks is named
// in the env-passthrough input; forgetting one fails a test visibly, while
// a deny-list that forgets a credential leaks it silently.
//
// Names match exactly and case-sensitively, as Linux compares them. There is
// no prefix rule, not even GO* or CGO_*: GO_TOKEN, GOOGLE_API_KEY and
// GOPASS_PASSWORD share the prefix with the go command's variables. A
// variable a future go command adds is dropped until it is listed here or
// passed through.
//
// Values are not inspected. A GOPROXY, GOAUTH or HTTPS_PROXY holding
// credentials is the workflow's own setting for fetching modules: the go
// command cannot download them without it, so refusing it would fail the
// build without protecting anything, and the workflow's own go test step
// hands it to the tests just the same.

// allowed are the variables every child gets when the parent has them.
var allowed = setOf(
	// Finding programs, the home directory (git's and the go command's
	// configuration, the default GOPATH and build cache), temporary files.
	"PATH", "HOME", "USER", "LOGNAME", "TMPDIR", "TMP", "TEMP",
	"XDG_CACHE_HOME", "XDG_CONFIG_HOME",
	// Locale, time zone and terminal, which change messages and formatting.
	"LANG", "LANGUAGE", "LC_ALL", "LC_ADDRESS", "LC_COLLATE", "LC_CTYPE",
	"LC_IDENTIFICATION", "LC_MEASUREMENT", "LC_MESSAGES", "LC_MONETARY",
	"LC_NAME", "LC_NUMERIC", "LC_PAPER", "LC_TELEPHONE", "LC_TIME",
	"TZ", "TERM",
	// The go command's settings, as go help environment lists them, without
	// the ones it computes and never reads (GOEXE, GOGCCFLAGS, GOHOSTARCH,
	// GOHOSTOS, GOMOD, GOTELEMETRY, GOTELEMETRYDIR, GOTOOLDIR, GOVERSION).
	// GOTOOLCHAIN is GoEnv's own.
	"GO111MODULE", "GOARCH", "GOAUTH", "GOBIN", "GOCACHE", "GOCACHEPROG",
	"GOCOVERDIR", "GODEBUG", "GOENV", "GOEXPERIMENT", "GOFIPS140", "GOFLAGS",
	"GOINSECURE", "GOMODCACHE", "GONOPROXY", "GONOSUMDB", "GOOS", "GOPATH",
	"GOPRIVATE", "GOPROXY", "GOROOT", "GOSUMDB", "GOTMPDIR", "GOVCS",
	"GOWORK", "GO_EXTLINK_ENABLED",
	"GCCGO", "GCCGOTOOLDIR",
	"GO386", "GOAMD64", "GOARM", "GOARM64", "GOMIPS", "GOMIPS64", "GOPPC64",
	"GORISCV64", "GOWASM",
	// The runtime's settings, which a test binary reads.
	"GOGC", "GOMAXPROCS", "GOMEMLIMIT", "GOTRACEBACK", "GORACE",
	// cgo: the compilers, their flags and the checks on those flags, and
	// where the compilers and the dynamic loader look for libraries.
	"CGO_ENABLED",
	"CGO_CFLAGS", "CGO_CFLAGS_ALLOW", "CGO_CFLAGS_DISALLOW",
	"CGO_CPPFLAGS", "CGO_CPPFLAGS_ALLOW", "CGO_CPPFLAGS_DISALLOW",
	"CGO_CXXFLAGS", "CGO_CXXFLAGS_ALLOW", "CGO_CXXFLAGS_DISALLOW",
	"CGO_FFLAGS", "CGO_FFLAGS_ALLOW", "CGO_FFLAGS_DISALLOW",
	"CGO_LDFLAGS", "CGO_LDFLAGS_ALLOW", "CGO_LDFLAGS_DISALLOW",
	"CC", "CXX", "FC", "AR", "PKG_CONFIG", "PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR",
	"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "LIBRARY_PATH", "LD_LIBRARY_PATH",
	// TLS roots, and the runner's proxy in both spellings: Go's net/http
	// reads either, curl and git mostly the lower-case one.
	"SSL_CERT_FILE", "SSL_CERT_DIR",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
	"http_proxy", "https_proxy", "no_proxy", "all_proxy",
	// Markers tests read to tell CI from a laptop; none identifies or
	// authorises anything.
	"CI", "GITHUB_ACTIONS", "RUNNER_OS", "RUNNER_ARCH",
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// ParsePassthrough splits a list of variable names separated by commas,
// spaces or newlines.
func ParsePassthrough(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' })
}

// Env returns the parent's variables that are allow-listed or named in
// passthrough (the Action's env-passthrough input: the user chose to hand
// them to the pull request's code, whatever they hold), and
// GOTOOLCHAIN=local even when GOTOOLCHAIN is passed through. It is the
// environment of every process culprit starts on a pull request's code;
// each command names its own passthrough, so that no setting outlives the
// analysis that asked for it.
func Env(passthrough []string) []string { return GoEnv(passthrough, nil, "") }

// GoEnv is the environment of the go command, and of any process that may
// run it (a user's build command, a test that runs go): Env(passthrough),
// then extra, then GOTOOLCHAIN=local, which neither passthrough nor extra
// can change (a build must not download a toolchain chosen by the code
// under test). With modFlag set, -mod=modFlag is added to GOFLAGS unless
// GOFLAGS already has a -mod flag, which the user chose: GOFLAGS rather
// than the command line, so that a go command run by a user's script gets
// it too.
func GoEnv(passthrough, extra []string, modFlag string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name != "GOTOOLCHAIN" && (allowed[name] || slices.Contains(passthrough, name)) {
			env = append(env, kv)
		}
	}
	env = append(append(env, extra...), "GOTOOLCHAIN=local")
	if flags := lookup(env, "GOFLAGS"); modFlag != "" && !strings.Contains(flags, "-mod=") {
		env = append(env, "GOFLAGS="+strings.TrimSpace(flags+" -mod="+modFlag))
	}
	return env
}

// lookup returns the value of the last NAME=value entry for name in env,
// the one a child sees.
func lookup(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

package trace

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

func TestZZBin(t *testing.T) {
	b, err := Build(context.Background(), Config{Dir: "/tmp/lb", Pkg: "./p", Test: "TestLoop", Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if out, err := exec.Command("cp", b.bin, "/tmp/lb/traced.test").CombinedOutput(); err != nil {
		t.Fatal(err, string(out))
	}
}

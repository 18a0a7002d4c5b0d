package version

import (
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/culprit-dev/culprit/analyzer/result"
)

func TestOf(t *testing.T) {
	for _, tt := range []struct {
		name string
		bi   debug.BuildInfo
		want result.Tool
	}{
		{
			name: "go install at a version",
			bi:   debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}},
			want: result.Tool{Version: "v1.2.0"},
		},
		{
			name: "a checkout with changes",
			bi: debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260101000000-65f3823c2b1a+dirty"}, Settings: []debug.BuildSetting{
				{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "65f3823c2b1a0000000000000000000000000000"}, {Key: "vcs.modified", Value: "true"},
			}},
			want: result.Tool{Version: "v0.0.0-20260101000000-65f3823c2b1a+dirty", Revision: "65f3823c2b1a0000000000000000000000000000", Modified: true},
		},
		{
			name: "a clean checkout",
			bi: debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260101000000-65f3823c2b1a"}, Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: "65f3823c2b1a0000000000000000000000000000"}, {Key: "vcs.modified", Value: "false"},
			}},
			want: result.Tool{Version: "v0.0.0-20260101000000-65f3823c2b1a", Revision: "65f3823c2b1a0000000000000000000000000000"},
		},
		{
			name: "no version recorded",
			bi:   debug.BuildInfo{},
			want: result.Tool{Version: "(devel)"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, of(&tt.bi)); diff != "" {
				t.Errorf("of (-want +got):\n%s", diff)
			}
		})
	}
}

package bot

import "testing"

func TestNeedsApproval(t *testing.T) {
	tests := []struct {
		name string
		pr   pullRequest
		want bool
	}{
		{"a branch of the repository, no association", pullRequest{association: "NONE"}, false},
		{"a fork by a first-time contributor", pullRequest{fromFork: true, association: "FIRST_TIME_CONTRIBUTOR"}, true},
		{"a fork by a new GitHub user", pullRequest{fromFork: true, association: "FIRST_TIMER"}, true},
		{"a fork by someone with no association", pullRequest{fromFork: true, association: "NONE"}, true},
		{"a fork, association not given", pullRequest{fromFork: true}, true},
		{"a fork by a contributor", pullRequest{fromFork: true, association: "CONTRIBUTOR"}, false},
		{"a fork by a member", pullRequest{fromFork: true, association: "MEMBER"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := needsApproval(tt.pr); got != tt.want {
				t.Errorf("needsApproval(%+v) = %v, want %v", tt.pr, got, tt.want)
			}
		})
	}
}

package fakegh

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// prJSON is p as GET /pulls/{number} and GET /pulls answer it.
func (s *Server) prJSON(p PR) map[string]any {
	base := s.Owner + "/" + s.Repo
	head := base
	if p.HeadRepo != "" {
		head = p.HeadRepo
	}
	headOwner, _, _ := strings.Cut(head, "/")
	ref := p.headRef()
	pr := map[string]any{
		"number":   p.Number,
		"state":    p.state(),
		"html_url": fmt.Sprintf("https://github.example/%s/%s/pull/%d", s.Owner, s.Repo, p.Number),
		"base":     map[string]any{"sha": p.BaseSHA, "ref": "main", "label": s.Owner + ":main", "repo": repoJSON(base, false)},
		"head":     map[string]any{"sha": p.HeadSHA, "ref": ref, "label": headOwner + ":" + ref, "repo": repoJSON(head, head != base)},
	}
	if p.Author != "" {
		pr["user"] = User{Login: p.Author, Type: "User"}
	}
	if p.AuthorAssociation != "" {
		pr["author_association"] = p.AuthorAssociation
	}
	return pr
}

func (p PR) headRef() string {
	if p.HeadRef == "" {
		return "feature"
	}
	return p.HeadRef
}

func (p PR) state() string {
	if p.State == "" {
		return "open"
	}
	return p.State
}

// listPRs serves GET /repos/{owner}/{repo}/pulls with GitHub's filters:
// state (open unless given; open, closed or all), head ("owner:branch",
// the owner of the head repository and the branch), and base (the base
// branch, always "main" here). A head filter without an owner, or a query
// parameter GitHub does not take, fails the test: GitHub would not say
// which owner's branch it matched.
func (s *Server) listPRs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	for k := range q {
		if !slices.Contains([]string{"state", "head", "base", "sort", "direction", "per_page", "page"}, k) {
			s.t.Errorf("fake GitHub: GET pulls: unknown parameter %q", k)
		}
	}
	state := q.Get("state")
	switch state {
	case "":
		state = "open"
	case "open", "closed", "all":
	default:
		s.t.Errorf("fake GitHub: GET pulls: state %q", state)
		s.fail(w, http.StatusUnprocessableEntity, "Validation Failed")
		return
	}
	head := q.Get("head")
	if head != "" && !strings.Contains(head, ":") {
		s.t.Errorf("fake GitHub: GET pulls: head %q without an owner (want owner:branch)", head)
	}
	var matched []PR
	for _, p := range s.PRs {
		headRepo := p.HeadRepo
		if headRepo == "" {
			headRepo = s.Owner + "/" + s.Repo
		}
		headOwner, _, _ := strings.Cut(headRepo, "/")
		switch {
		case state != "all" && p.state() != state,
			head != "" && !strings.EqualFold(head, headOwner+":"+p.headRef()),
			q.Get("base") != "" && q.Get("base") != "main":
			continue
		}
		matched = append(matched, p)
	}
	// GitHub's default order: newest first.
	slices.SortFunc(matched, func(a, b PR) int { return b.Number - a.Number })
	lo, hi := s.pageBounds(w, r, len(matched))
	out := make([]map[string]any, 0, hi-lo)
	for _, p := range matched[lo:hi] {
		out = append(out, s.prJSON(p))
	}
	s.json(w, http.StatusOK, out)
}

// pageBounds is the slice [lo:hi] of n items that r's page and per_page
// ask for, capped by PageSize; it sets the Link header to the next page.
func (s *Server) pageBounds(w http.ResponseWriter, r *http.Request, n int) (lo, hi int) {
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 || per > 100 {
		per = 30
	}
	if per > s.PageSize {
		per = s.PageSize
	}
	p, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if p <= 0 {
		p = 1
	}
	lo, hi = min((p-1)*per, n), p*per
	if hi >= n {
		return lo, n
	}
	q := r.URL.Query()
	q.Set("page", strconv.Itoa(p+1))
	q.Set("per_page", strconv.Itoa(per))
	w.Header().Set("Link", fmt.Sprintf(`<%s%s?%s>; rel="next"`, s.URL, r.URL.Path, q.Encode()))
	return lo, hi
}

package fakegh

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Dispatch is one accepted workflow_dispatch.
type Dispatch struct {
	Workflow string
	Ref      string
	Inputs   map[string]string
}

// Dispatches returns the accepted workflow dispatches, in order.
func (s *Server) Dispatches() []Dispatch {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Dispatch(nil), s.dispatches...)
}

func (s *Server) getRepo(w http.ResponseWriter, r *http.Request) {
	s.json(w, http.StatusOK, map[string]any{
		"name":           s.Repo,
		"full_name":      s.Owner + "/" + s.Repo,
		"owner":          map[string]any{"login": s.Owner},
		"default_branch": s.DefaultBranch,
	})
}

func (s *Server) getPermission(w http.ResponseWriter, r *http.Request) {
	user := r.PathValue("user")
	p, ok := s.Permissions[user]
	if !ok {
		s.fail(w, http.StatusNotFound, user+" is not a user")
		return
	}
	s.json(w, http.StatusOK, map[string]any{
		"permission": p,
		"role_name":  p,
		"user":       User{Login: user, Type: "User"},
	})
}

// reactionContents are the reactions GitHub accepts.
var reactionContents = []string{"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"}

func (s *Server) createReaction(w http.ResponseWriter, r *http.Request) {
	if s.forbidWrite(w) {
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	var in struct {
		Content string `json:"content"`
	}
	if !s.body(w, r, &in) {
		return
	}
	if !slices.Contains(reactionContents, in.Content) {
		s.t.Errorf("fake GitHub: reaction %q", in.Content)
		s.fail(w, http.StatusUnprocessableEntity, "Validation Failed")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cs := range s.Issue {
		for _, c := range cs {
			if c.ID == id {
				c.Reactions = append(c.Reactions, in.Content)
				s.json(w, http.StatusCreated, map[string]any{"id": len(c.Reactions), "content": in.Content, "user": User{Login: s.login()}})
				return
			}
		}
	}
	s.t.Errorf("fake GitHub: reaction to unknown issue comment %d", id)
	s.fail(w, http.StatusNotFound, "Not Found")
}

// dispatch checks a workflow_dispatch as GitHub does: the workflow exists,
// the ref is a branch, the inputs are declared strings and the required
// ones are given.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request) {
	if s.forbidWrite(w) {
		return
	}
	file := r.PathValue("file")
	var in struct {
		Ref    string         `json:"ref"`
		Inputs map[string]any `json:"inputs"`
	}
	if !s.body(w, r, &in) {
		return
	}
	declared, ok := s.Workflows[file]
	if !ok {
		s.fail(w, http.StatusNotFound, "Not Found")
		return
	}
	if in.Ref != s.DefaultBranch {
		s.fail(w, http.StatusUnprocessableEntity, "No ref found for: "+in.Ref)
		return
	}
	inputs := map[string]string{}
	var unexpected []string
	for k, v := range in.Inputs {
		str, isString := v.(string)
		switch {
		case !slices.Contains(declared, k) && !slices.Contains(declared, k+"!"):
			unexpected = append(unexpected, strconv.Quote(k))
		case !isString:
			s.t.Errorf("fake GitHub: dispatch input %s = %v, not a string", k, v)
			s.fail(w, http.StatusUnprocessableEntity, fmt.Sprintf("Invalid value for input %q", k))
			return
		default:
			inputs[k] = str
		}
	}
	if len(unexpected) > 0 {
		slices.Sort(unexpected)
		s.fail(w, http.StatusUnprocessableEntity, "Unexpected inputs provided: ["+strings.Join(unexpected, ", ")+"]")
		return
	}
	for _, d := range declared {
		if name, required := strings.CutSuffix(d, "!"); required && inputs[name] == "" {
			s.fail(w, http.StatusUnprocessableEntity, fmt.Sprintf("Required input '%s' not provided", name))
			return
		}
	}
	d := Dispatch{Workflow: file, Ref: in.Ref, Inputs: inputs}
	s.mu.Lock()
	s.dispatches = append(s.dispatches, d)
	s.mu.Unlock()
	s.startRun(d)
	w.WriteHeader(http.StatusNoContent)
}

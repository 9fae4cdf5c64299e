"""The epm:* marker names Sagan accepts (its KNOWN_MARKER_TYPES); anything else is a 400."""

KNOWN_MARKER_TYPES: frozenset[str] = frozenset({
    # planning and clarification
    "epm:clarify", "epm:clarify-answers", "epm:clarify-questions", "epm:gate",
    "epm:plan", "epm:plan-critique", "epm:plan-revision", "epm:consistency",
    "epm:textbox-answers", "epm:blocker",
    # implementation and review
    "epm:experiment-implementation", "epm:code-review", "epm:code-review-codex",
    "epm:code-review-reconcile", "epm:review-reconcile", "epm:reviewer-verdict",
    "epm:reviewer-verdict-codex", "epm:reviewer-pass", "epm:reviewer-decision",
    "epm:reviewer-ensemble-final", "epm:test-verdict", "epm:preflight",
    # running
    "epm:launch", "epm:progress", "epm:results", "epm:upload-verification",
    "epm:pod-stopped", "epm:pod-lost", "epm:recovery",
    # interpretation and clean result
    "epm:interpretation", "epm:interp-critique", "epm:interp-critique-codex",
    "epm:interp-revision", "epm:clean-result", "epm:clean-result-critique",
    "epm:clean-result-critique-codex", "epm:clean-result-critique-reconcile",
    "epm:clean-result-lint", "epm:follow-ups", "epm:awaiting-promotion", "epm:promoted",
    # housekeeping
    "epm:hold", "epm:unblock", "epm:note", "epm:archive",
})

/**
 * An issue's title as shown (lists, What changed, messages): the rule's title and the subject,
 * so six open ports of one host read as six places, not six identical rows (DESIGN §15).
 */
export function titleWithSubject(issue: { title: string; subject?: string | null }): string {
  return issue.subject ? `${issue.title} at ${issue.subject}` : issue.title;
}

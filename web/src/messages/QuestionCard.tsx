// A question from the agent: one button per option, styled by severity, disabled once answered.

import { useState } from "react";
import type { QuestionMessage } from "../generated/protocol";
import { useCardActions } from "./actions";

/** Renders a question; choosing an option sends a `question_answer`. */
export function QuestionCard({ id, question }: { id: string; question: QuestionMessage }) {
  const { api, contextId, reportError } = useCardActions();
  const [chosen, setChosen] = useState<string | null>(null);
  const answer = question.answer?.value ?? chosen;
  const answeredLabel = question.options.find((o) => o.value === answer)?.label ?? answer;

  const choose = async (value: string) => {
    setChosen(value);
    try {
      await api.sendMessage(contextId, { payload: { type: "question_answer", question_id: id, value } });
    } catch (err) {
      setChosen(null);
      reportError(err);
    }
  };

  return (
    <section className={`card question-card severity-${question.severity}`} aria-label={`Question (${question.severity})`}>
      <div className="card-title">
        Question <span className={`badge severity-badge-${question.severity}`}>{question.severity}</span>
      </div>
      <p className="question-text">{question.question}</p>
      {question.context && <p className="muted">{question.context}</p>}
      <div className="actions" role="group" aria-label="Answers">
        {question.options.map((o) => (
          <button
            key={o.value}
            type="button"
            className={`btn option ${answer === o.value ? "chosen" : ""}`}
            disabled={answer !== null && answer !== undefined}
            aria-pressed={answer === o.value}
            onClick={() => void choose(o.value)}
          >
            {o.label}
            {question.default === o.value && <span className="muted"> (suggested)</span>}
          </button>
        ))}
      </div>
      {answer != null && <p className="answered">Answered: {answeredLabel}</p>}
    </section>
  );
}

//! Executor of the engine's `RunTools` effect: each call of a reply is prepared (checked
//! against its tool and the sandbox), decided (the policy, else the person is asked), run
//! under Stop, and answered to the engine — which records it and, after the last, sends the
//! results to the model. Also starting the MCP servers when their tools are first needed,
//! and withdrawing the tools of one that stopped. What the session's tools are, and what a
//! request offers, is the [`Toolbox`](super::toolbox::Toolbox)'s.

use super::command::{Approval, Command};
use super::driver::{Actor, Job};
use crate::core::engine::{Input, ToolAnswer};
use crate::core::message::ToolCall;
use crate::llm::ChatBackend;
use crate::store::SessionStore;
use crate::tools::mcp;
use crate::tools::policy::Verdict;
use crate::tools::{self, Outcome, Prepared, ToolError};
use crate::view::{Activity, ApprovalAsk, McpEvent, Notice, SessionScope};
use chrono::Utc;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a stopped command gets to stop and report (its supervisor's cleanup is
/// bounded by the command's own grace; this is only a backstop).
const STOP_REPORT_WAIT: Duration = Duration::from_secs(5);

impl<B: ChatBackend, S: SessionStore> Actor<B, S> {
    /// The engine learns what it may offer the model: after the model's capabilities are
    /// known, and whenever MCP servers start or stop (it decides each request's offer and
    /// counts the schemas, `engine/offer.rs`).
    pub(super) fn offer_tools(&mut self) {
        let offers = self.tools.offers(self.link.tools_capable());
        self.apply(Input::ToolsAvailable(offers));
    }

    /// Start the MCP servers the first time tools are offered, and withdraw the tools of
    /// any that stopped; the offer follows. Each start or loss is said once. True when the
    /// offer changed.
    pub(super) async fn refresh_mcp(&mut self) -> bool {
        if self.tools.config().is_none() || !self.link.tools_capable() {
            return false;
        }
        let mut events = Vec::new();
        if self.tools.mcp_unstarted() {
            self.out.set_activity(Activity::Tool {
                since: Instant::now(),
                what: "starting MCP servers".into(),
            });
            self.publish();
            events = self.tools.start_mcp().await;
        }
        events.extend(self.tools.reap_mcp().await);
        if events.is_empty() {
            return false;
        }
        self.tools.mcp_changed();
        self.offer_tools();
        for e in events {
            self.out.notice(Notice::Mcp(match e {
                mcp::Event::Started { server, tools } => McpEvent::Started { server, tools },
                mcp::Event::Failed { server, error } => McpEvent::Failed { server, error },
            }));
        }
        true
    }

    /// Run the calls in order; the engine answers the last with the next request.
    pub(super) async fn run_tools(&mut self, calls: Vec<ToolCall>) -> Option<Job> {
        let mut job = None;
        for call in calls {
            // Quitting while a result was read through: the rest are not run.
            let answer = if self.inbox.quitting() {
                Err(None)
            } else {
                self.run_one(call).await
            };
            let running = match answer {
                Ok(answer) => {
                    let fx = self.engine.handle(Input::ToolResult(answer), Utc::now());
                    job = self.execute(fx);
                    continue;
                }
                Err(running) => running,
            };
            // Stopped. The call that was running is answered with what it did: it ran.
            if let Some(answer) = running {
                let fx = self.engine.handle(Input::ToolResult(answer), Utc::now());
                if let Some(next) = self.execute(fx) {
                    // It was the last call, so the engine went on to its next step (the
                    // results to the model): the Stop holds for that step too, which
                    // ends as stopped before it began.
                    self.inbox.stop_next();
                    return Some(next);
                }
            }
            // The calls not answered are recorded as not run.
            let fx = self.engine.handle(Input::ToolsStopped, Utc::now());
            return self.execute(fx);
        }
        job
    }

    /// One call to its answer. `Err` when the person stopped the calls: with the answer
    /// of the call that was running then (what it did), `None` when none was.
    async fn run_one(&mut self, call: ToolCall) -> Result<ToolAnswer, Option<ToolAnswer>> {
        let answer = |call: ToolCall, out: Outcome, ms: Option<u64>| ToolAnswer {
            call,
            result: out.text,
            is_error: out.is_error,
            ms,
            digest: None,
        };
        let Some(cfg) = self.tools.config().cloned() else {
            return Ok(answer(call, Outcome::error(&ToolError::Disabled), None));
        };
        if let Some(e) = self.tools.unavailable(&call.name) {
            return Ok(answer(call, Outcome::error(&e), None));
        }
        let prepared = match tools::prepare(&call, &cfg.sandbox, self.tools.mcp_tools()) {
            Ok(p) => p,
            Err(e) => return Ok(answer(call, Outcome::error(&e), None)),
        };
        let is_mcp = matches!(prepared, Prepared::Mcp(_));
        let keys = prepared.session_keys(&call.name);
        let verdict = cfg
            .approvals
            .verdict(&call.name, prepared.access(), keys.as_deref());
        if verdict == Verdict::Refuse {
            return Ok(answer(call, Outcome::error(&ToolError::Disabled), None));
        }
        // What an edit replaces is read, and its diff made, off the actor (bounded, with a
        // time limit); Stop ends the wait.
        let sandbox = cfg.sandbox.clone();
        let limits = cfg.limits;
        let prepared = match self
            .listen(async move { prepared.load(&sandbox, limits).await })
            .await
            .ok_or(None)?
        {
            Ok(p) => p,
            Err(e) => return Ok(answer(call, Outcome::error(&e), None)),
        };
        match verdict {
            Verdict::Refuse | Verdict::Run => {}
            Verdict::Ask => match self.ask(&call, &prepared, &cfg.sandbox).await.ok_or(None)? {
                Approval::Once => {}
                Approval::Session => {
                    if let Some(keys) = keys {
                        self.tools.allow_for_session(keys);
                    }
                }
                Approval::Deny { reason } => {
                    let e = ToolError::Denied { reason };
                    return Ok(answer(call, Outcome::error(&e), None));
                }
            },
        }
        match &prepared {
            Prepared::Recall(r) => return Ok(answer(call, self.recall(r), Some(0))),
            Prepared::SearchHistory(q) => {
                let text = self
                    .engine
                    .search_history(&q.query, q.limit.unwrap_or(5) as usize);
                return Ok(answer(call, Outcome::ok(text), Some(0)));
            }
            Prepared::TaskDone => {
                let text = "Noted: the task is done. Its tool calls and results leave the \
                            conversation after your answer. Answer the user now.";
                return Ok(answer(call, Outcome::ok(text.to_string()), Some(0)));
            }
            _ => {}
        }
        let since = Instant::now();
        self.out.set_activity(Activity::Tool {
            since,
            what: format!("{} {}", call.name, crate::view::key_argument(&call.args)),
        });
        self.publish();
        let sandbox = cfg.sandbox.clone();
        let env = cfg.env.clone();
        let is_command = matches!(prepared, Prepared::RunCommand(_));
        let (ask_stop, stop) = tokio::sync::oneshot::channel();
        let mut run = Box::pin(async move { prepared.run(&sandbox, limits, &env, stop).await });
        let ms = |since: Instant| u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX);
        let Some(out) = self.listen(&mut run).await else {
            // Stopped while it ran: it did run. A command stops and says what it printed
            // (its supervisor kills what it started first); for anything else only how
            // long it ran is known.
            let _ = ask_stop.send(());
            let after = since.elapsed();
            let out = if is_command {
                tokio::time::timeout(STOP_REPORT_WAIT, run).await.ok()
            } else {
                None
            };
            let out = out.unwrap_or_else(|| {
                Outcome::error(&ToolError::Stopped {
                    after,
                    so_far: "it was not waited for, and may have taken effect".to_string(),
                })
            });
            return Err(Some(answer(call, out, Some(ms(since)))));
        };
        let ms = ms(since);
        if is_mcp {
            // A server that died on this call is said now, and its tools withdrawn.
            self.refresh_mcp().await;
        }
        let digest = if out.is_error {
            None
        } else {
            self.digest(&call, &out.text).await
        };
        Ok(ToolAnswer {
            digest,
            ..answer(call, out, Some(ms))
        })
    }

    /// A `recall`: the lines asked for of a saved result, or of a result the context
    /// holds whole. The answer is itself shortened if it is large (ask for fewer lines).
    fn recall(&self, r: &tools::Recall) -> Outcome {
        let failed = |why: String| Outcome::error(&ToolError::Failed(why));
        let text = match self.whole_result(crate::core::message::MessageId(r.id)) {
            Ok((_, text)) => text,
            Err(why) => return failed(why),
        };
        match crate::core::result_lines::slice(&text, r.id, r.start_line, r.end_line) {
            Ok(s) => Outcome::ok(s),
            Err(e) => failed(e),
        }
    }

    /// Show the call and wait for the person's answer; `None` when they stopped instead.
    async fn ask(
        &mut self,
        call: &ToolCall,
        prepared: &Prepared,
        sandbox: &tools::Sandbox,
    ) -> Option<Approval> {
        let session_scope = match prepared.programs() {
            Some(Ok(mut programs)) => {
                programs.dedup();
                let mut seen = std::collections::HashSet::new();
                programs.retain(|p| seen.insert(p.clone()));
                SessionScope::Programs(programs)
            }
            Some(Err(why)) => SessionScope::NotOffered(why.0),
            None => SessionScope::Tool(call.name.clone()),
        };
        let id = self.tools.next_question();
        self.out
            .set_activity(Activity::Approval(Arc::new(ApprovalAsk {
                id,
                tool: call.name.clone(),
                preview: prepared.preview(sandbox),
                session_scope,
                from_text: call.from_text,
            })));
        self.publish();
        let decision = self.await_approval(id).await;
        self.out.set_activity(Activity::Idle);
        self.publish();
        decision
    }

    /// Commands while a call waits: the answer ends it, Stop or quitting ends the calls,
    /// read-only commands are answered, the rest wait their turn.
    async fn await_approval(&mut self, id: u64) -> Option<Approval> {
        loop {
            if self.inbox.closed() || self.inbox.quitting() {
                return None;
            }
            let cmd = self.inbox.next().await;
            match cmd {
                Some(Command::Approve {
                    id: answered,
                    answer,
                }) if answered == id => {
                    return Some(answer);
                }
                // An answer to an earlier question (a key pressed twice).
                Some(Command::Approve { .. }) => {}
                Some(Command::Stop) | None => return None,
                Some(Command::Shutdown) => {
                    self.inbox.push_front(Command::Shutdown);
                    return None;
                }
                Some(c) => self.while_busy(c),
            }
        }
    }
}

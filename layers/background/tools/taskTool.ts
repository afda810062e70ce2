/**
 * What one background tool is, as the task's tools and their callers see it: its name, what the model is told, how
 * it runs, the changes it reports and the results it returns. Shapes and result constructors only: no tool runs here,
 * and nothing here checks or publishes anything.
 */
import type { AgentToolResult } from "@earendil-works/pi-agent-core"
import type { Tool } from "@earendil-works/pi-ai"

export const BACKGROUND_TOOL_NAMES = ["read", "find", "grep", "write", "edit", "bash"] as const
export type BackgroundToolName = (typeof BACKGROUND_TOOL_NAMES)[number]

export type ToolResult = AgentToolResult<unknown>

/** A change a task tried and could not make. */
export interface UnsavedChange {
  readonly file: string
  readonly reason: string
}

/** A successful change in memory, reported at once (change notices, the run's file list). */
export interface MemoryChange {
  readonly op: "write" | "edit" | "delete"
  readonly path: string
}

export interface TaskTool {
  readonly name: BackgroundToolName | "codemode"
  /** What the model is told: Pi's own description and parameters. */
  readonly declaration: Tool
  readonly execute: (toolCallId: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<ToolResult>
}

export interface CodemodeSettings {
  readonly mode: "on" | "only"
  readonly inlineBudget: number | undefined
}

/** The body of one tool: its arguments already checked against its schema (./toolArguments.ts). */
export type ToolBody = (id: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<ToolResult>

export const errorResult = (text: string): ToolResult => ({ content: [{ type: "text", text }], details: undefined, isError: true })

export const textResult = (text: string): ToolResult => ({ content: [{ type: "text", text }], details: undefined })

/** One of Pi's tool definitions run with our arguments (no update callback, no context). */
export const viaPi = (def: { execute: (...a: Array<any>) => Promise<unknown> }): ToolBody => (id, args, signal) =>
  def.execute(id, args, signal, undefined, undefined) as Promise<ToolResult>

/** What the model is told of one of Pi's tool definitions. */
export const declare = (def: { name: string; description: string; parameters: unknown }): Tool =>
  ({ name: def.name, description: def.description, parameters: def.parameters as Tool["parameters"] })

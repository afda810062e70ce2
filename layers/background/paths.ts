/** Path containment for background tasks, shared by the session side and the task tools without loading the tools. */
import { isAbsolute, relative } from "node:path"

/** Strictly inside `dir` (the directory itself is not inside itself). */
export const isInsideDir = (dir: string, path: string): boolean => {
  const rel = relative(dir, path)
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel)
}

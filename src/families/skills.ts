/**
 * The skill registry family: an index and the files it lists.
 */
import type { Route } from "../registry/route.ts"
import { handler } from "../routes/handler/handler.ts"
import * as Skills from "../schemas/skills.ts"
import { named, schemaOf, withBase } from "./shared.ts"

/**
 * The Markdown body of a simulated skill file: a front-matter header naming the skill, then a
 * short body. A pure function of the skill and file names.
 */
export const skillFileText = (skill: string, file: string): string =>
  file === "SKILL.md"
    ? `---\nname: ${skill}\ndescription: Simulated skill "${skill}" served by simnet.\n---\n\n# ${skill}\n\nFollow the steps in reference.md.\n`
    : file.endsWith(".sh")
      ? `#!/bin/sh\necho "${skill}: ${file}"\n`
      : `# ${skill}: ${file}\n\nReference material for the ${skill} skill.\n`

/**
 * Whether a generated skill index can list `file` under `skill`: the names and files the narrowed
 * generator (`Skills.SkillIndexGenerated`) picks from.
 */
const isListableSkillFile = (skill: string, file: string): boolean =>
  (Skills.SKILL_NAMES as ReadonlyArray<string>).includes(skill) && Skills.SKILL_FILES.includes(file)

/**
 * A skill registry at `baseUrl`: `GET {baseUrl}/index.json` answers `{skills: [{name, files}]}`
 * and every file an index can list is served as text at `{baseUrl}/{name}/{file}`. Any other
 * skill or file under the registry answers 404 with a JSON error body, as a real registry does.
 */
export const skills = (baseUrl: string): Array<Route> =>
  withBase("skills", baseUrl, (base) => {
    const file = (skill: string, path: string): Response =>
      isListableSkillFile(skill, path)
        ? new Response(skillFileText(skill, path), {
            headers: {
              "content-type": path.endsWith(".md") ? "text/markdown; charset=utf-8" : "text/plain; charset=utf-8"
            }
          })
        : Response.json({ error: "not_found", message: `no file "${path}" in skill "${skill}"` }, { status: 404 })
    return [
      named(`GET ${base}/index.json`, schemaOf(Skills.SkillIndex, Skills.SkillIndexGenerated), "skills"),
      handler(`GET ${base}/:skill/:file`, (request) => file(request.params.skill, request.params.file), {
        source: "skills"
      }),
      handler(
        `GET ${base}/:skill/scripts/:file`,
        (request) => file(request.params.skill, `scripts/${request.params.file}`),
        {
          source: "skills"
        }
      )
    ]
  })

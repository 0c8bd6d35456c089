/**
 * A skill index: the list of skills a registry offers, each with the files it is made of. Each
 * file is served as text at `{baseUrl}/{skill}/{file}`.
 */
import { Schema } from "effect"

/** One skill and the paths of its files, relative to the skill. */
export const Skill = Schema.Struct({
  name: Schema.String,
  files: Schema.Array(Schema.String)
})

/** `GET {baseUrl}/index.json`. */
export const SkillIndex = Schema.Struct({
  skills: Schema.Array(Skill)
})

/** Names the generated index picks from. */
export const SKILL_NAMES = ["pdf", "docx", "webapp-testing", "changelog", "release-notes", "code-review"] as const

/** The narrowed generator of `SkillIndex`: one to four known skills, each with a `SKILL.md`. */
export const SkillIndexGenerated = Schema.Struct({
  skills: Schema.Array(
    Schema.Struct({
      name: Schema.Literals(SKILL_NAMES),
      files: Schema.TupleWithRest(Schema.Tuple([Schema.Literal("SKILL.md")]), [
        Schema.Literals(["reference.md", "examples.md", "scripts/run.sh"])
      ]).check(Schema.isMaxLength(3), Schema.isUnique())
    })
  ).check(
    Schema.isMinLength(1),
    Schema.isMaxLength(4),
    Schema.makeFilter((skills) => new Set(skills.map((skill) => skill.name)).size === skills.length, {
      expected: "skills with distinct names"
    })
  )
})

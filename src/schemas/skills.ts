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

/** Files a generated skill may list besides its `SKILL.md`, as paths relative to the skill. */
export const SKILL_EXTRA_FILES = ["reference.md", "examples.md", "scripts/run.sh"] as const

/** Every file a generated skill may list: the files the skills family serves. */
export const SKILL_FILES: ReadonlyArray<string> = ["SKILL.md", ...SKILL_EXTRA_FILES]

/**
 * The narrowed generator of `SkillIndex`: one to four skills named from `SKILL_NAMES`, each with a
 * `SKILL.md` and up to two of `SKILL_EXTRA_FILES`.
 */
export const SkillIndexGenerated = Schema.Struct({
  skills: Schema.Array(
    Schema.Struct({
      name: Schema.Literals(SKILL_NAMES),
      files: Schema.TupleWithRest(Schema.Tuple([Schema.Literal("SKILL.md")]), [
        Schema.Literals(SKILL_EXTRA_FILES)
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

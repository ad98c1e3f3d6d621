"""A guided lesson a class can follow live: eight steps from what a language model does to what the
paper found, each computed on the spot by the model from the class's sentences (`steps`), with a
"what to notice" line computed from its numbers (`notice`), the glossary (`glossary`) and a
self-contained HTML handout (`handout`) with its charts as static SVG (`svg`)."""
from pfcore.glossary import GLOSSARY, GLOSSARY_STEP, Term, glossary_line, glossary_link, probe_path
from pfcore.lesson.steps import (
    LESSON,
    Field,
    LessonContext,
    Step,
    StepResult,
    lesson_step,
    run_lesson,
    run_step,
    step_inputs,
)

__all__ = ["GLOSSARY", "GLOSSARY_STEP", "LESSON", "Field", "LessonContext", "Step", "StepResult", "Term",
           "glossary_line", "glossary_link", "lesson_step", "probe_path", "run_lesson", "run_step", "step_inputs"]

"""What a lecturer shows a room: the caption under the matrix, the narration log, the guided
exercise that holds a move for the class to work out, presentation mode, and the presenter view
on the lecturer's own screen."""

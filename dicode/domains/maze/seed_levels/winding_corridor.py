"""Winding corridor: a single corridor that zigzags down the maze in three bends. The agent
starts at the top-left end facing east; the goal is at the other end, bottom right. Follow
the corridor, turning at each bend."""


def build(level, rng):
    level.walls_from(
        """
        .........####
        ########.####
        ########.####
        ##.......####
        ##.##########
        ##.##########
        ##.......####
        ########.####
        ########.####
        ########.....
        ############.
        ############.
        ############.
        """
    )
    level.start(0, 0, "east")
    level.goal(12, 12)
